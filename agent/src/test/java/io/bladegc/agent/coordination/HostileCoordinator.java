package io.bladegc.agent.coordination;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Something hostile on the coordinator's address, for tests: a raw {@link ServerSocket} on loopback that answers
 * every request with one {@link Answer} and records, per connection, how many bytes it sent and when it saw the
 * connection closed by the client (a read returned -1 or failed, or a write failed). A thread per connection, all
 * daemons; {@link #close} closes the server and every connection. Thread-safe.
 */
public final class HostileCoordinator implements AutoCloseable {
    private static final byte[] JSON_OK = "{\"status\":\"OK\"}".getBytes(StandardCharsets.US_ASCII);

    /** The hostile answers. */
    public enum Answer {
        /** {@code 200}, JSON, chunked, 16 KiB chunks as fast as the client takes them, never ending. */
        ENDLESS_BODY,
        /** {@code 200}, JSON, {@code Content-Length} of 1 GiB, then 1 KiB every 10 ms. */
        GIGABYTE_BODY,
        /** {@code 200}, JSON, {@code Content-Length: 100}, then one byte every 100 ms. */
        DRIP_FED_BODY,
        /** The status line and headers one byte every 100 ms. */
        DRIP_FED_HEAD,
        /** {@code 200}, JSON, chunked, a chunk of valid JSON, then nothing: the body never ends. */
        NEVER_ENDS_AFTER_JSON,
        /** {@code 200}, {@code text/html}, 1 GiB announced, then 1 KiB every 10 ms. */
        WRONG_CONTENT_TYPE,
        /** {@code 200}, then one header line that never ends, as fast as the client takes it. */
        HUGE_HEADER
    }

    /** One connection as the server saw it. */
    public static final class Connection {
        public final AtomicLong written = new AtomicLong();
        /** Completes with the {@link System#nanoTime()} when the server saw the connection closed by the client. */
        public final CompletableFuture<Long> closed = new CompletableFuture<>();
    }

    private final Answer answer;
    private final ServerSocket server;
    private final List<Connection> connections = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    public HostileCoordinator(Answer answer) throws IOException {
        this.answer = answer;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "hostile-coordinator");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** @return the connections so far, in the order accepted */
    public List<Connection> connections() {
        return List.copyOf(connections);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                sockets.add(s);
                Connection c = new Connection();
                connections.add(c);
                Thread t = new Thread(() -> serve(s, c), "hostile-coordinator-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s, Connection c) {
        try (s) {
            InputStream in = s.getInputStream();
            readRequestHead(in);
            OutputStream out = s.getOutputStream();
            switch (answer) {
                case ENDLESS_BODY -> {
                    write(out, c, head("application/json", "Transfer-Encoding: chunked"));
                    byte[] chunk = ("4000\r\n" + " ".repeat(0x4000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
                    while (true) {
                        write(out, c, chunk);
                    }
                }
                case GIGABYTE_BODY, WRONG_CONTENT_TYPE -> {
                    write(out, c, head(answer == Answer.GIGABYTE_BODY ? "application/json" : "text/html",
                        "Content-Length: " + (1L << 30)));
                    byte[] kib = new byte[1024];
                    while (open(s, in, 10)) {
                        write(out, c, kib);
                    }
                }
                case DRIP_FED_BODY -> {
                    write(out, c, head("application/json", "Content-Length: 100"));
                    while (open(s, in, 100)) {
                        write(out, c, new byte[] {' '});
                    }
                }
                case DRIP_FED_HEAD -> {
                    for (byte b : head("application/json", "Content-Length: 2")) {
                        if (!open(s, in, 100)) {
                            break;
                        }
                        write(out, c, new byte[] {b});
                    }
                    while (open(s, in, 100)) {
                        // all sent: wait for the close
                    }
                }
                case NEVER_ENDS_AFTER_JSON -> {
                    write(out, c, head("application/json", "Transfer-Encoding: chunked"));
                    write(out, c, (Integer.toHexString(JSON_OK.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    write(out, c, JSON_OK);
                    write(out, c, "\r\n".getBytes(StandardCharsets.US_ASCII));
                    while (open(s, in, 100)) {
                        // no last chunk, ever
                    }
                }
                case HUGE_HEADER -> {
                    write(out, c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Filler: "
                        .getBytes(StandardCharsets.US_ASCII));
                    byte[] filler = "a".repeat(8192).getBytes(StandardCharsets.US_ASCII);
                    while (true) {
                        write(out, c, filler);
                    }
                }
                default -> throw new AssertionError(answer);
            }
            c.closed.complete(System.nanoTime());
        } catch (IOException e) {
            c.closed.complete(System.nanoTime()); // a write or read failed: the client closed the connection
        }
    }

    private static byte[] head(String contentType, String framing) {
        return ("HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\n" + framing + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    }

    private static void write(OutputStream out, Connection c, byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        c.written.addAndGet(bytes.length);
    }

    /** @return {@code false} when the client closed the connection within {@code millis}, else {@code true} */
    private static boolean open(Socket s, InputStream in, int millis) throws IOException {
        s.setSoTimeout(millis);
        try {
            return in.read() >= 0;
        } catch (SocketTimeoutException e) {
            return true;
        }
    }

    /** Reads up to the end of the request's head (the body, if any, is left unread: a small one stays buffered). */
    private static void readRequestHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = {'\r', '\n', '\r', '\n'};
        for (int b = in.read(); b >= 0; b = in.read()) {
            matched = b == end[matched] ? matched + 1 : b == '\r' ? 1 : 0;
            if (matched == end.length) {
                return;
            }
        }
        throw new IOException("closed before the request's head ended");
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closed as far as it goes
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closed as far as it goes
            }
        }
    }
}
