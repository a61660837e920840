package io.bladegc.coordinator.lb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for HAProxy's runtime API: accepts connections on loopback TCP or a unix socket, reads one line per
 * connection, records it, lets a {@link Responder} answer, closes. Like HAProxy in non-interactive mode.
 */
final class FakeRuntimeApi implements AutoCloseable {

    @FunctionalInterface
    interface Responder {
        void respond(String command, OutputStream out) throws Exception;
    }

    /** Answers {@code text} as it is. */
    static Responder answer(String text) {
        return (command, out) -> out.write(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** HAProxy's success for {@code set server}: an empty line. */
    static final Responder OK = answer("\n");

    /** Never answers (until the fake is closed). */
    static final Responder SILENT = (command, out) -> Thread.sleep(60_000);

    private final ServerSocketChannel server;
    private final Path unixPath;
    private final Responder responder;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-runtime-api");
        t.setDaemon(true);
        return t;
    });
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();

    private FakeRuntimeApi(ServerSocketChannel server, Path unixPath, Responder responder) {
        this.server = server;
        this.unixPath = unixPath;
        this.responder = responder;
        pool.execute(this::acceptLoop);
    }

    static FakeRuntimeApi tcp(Responder responder) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        return new FakeRuntimeApi(server, null, responder);
    }

    static FakeRuntimeApi unix(Path dir, Responder responder) throws IOException {
        Path path = dir.resolve("admin.sock");
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path), 64);
        return new FakeRuntimeApi(server, path, responder);
    }

    RuntimeApiEndpoint endpoint() throws IOException {
        if (unixPath != null) {
            return RuntimeApiEndpoint.unix(unixPath);
        }
        return RuntimeApiEndpoint.tcp("127.0.0.1", ((InetSocketAddress) server.getLocalAddress()).getPort());
    }

    /** Every line received, with its line break, in arrival order. */
    List<String> received() {
        return received;
    }

    int connections() {
        return connections.get();
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel channel = server.accept();
                connections.incrementAndGet();
                pool.execute(() -> serve(channel));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(SocketChannel channel) {
        try (channel; InputStream in = Channels.newInputStream(channel); OutputStream out = Channels.newOutputStream(channel)) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0) {
                line.write(b);
                if (b == '\n') {
                    break;
                }
            }
            String command = line.toString(StandardCharsets.US_ASCII);
            received.add(command);
            responder.respond(command.strip(), out);
            out.flush();
        } catch (Exception e) {
            // the client went away or the fake is closing
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        pool.shutdownNow();
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (unixPath != null) {
            Files.deleteIfExists(unixPath);
        }
    }
}
