package io.bladegc.testkit;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * HAProxy in a child process with a configuration the caller writes around the runtime API's unix socket: the
 * configuration goes to {@code <dir>/haproxy.cfg}, the output to {@code <dir>/haproxy.log}, the socket into a
 * temporary directory of its own (unix socket paths are short). Runs in the foreground ({@code -db}), ready when the
 * socket exists (within 30 s), stopped by its pid ({@link ChildProcess}). Thread-safe.
 */
public final class HaproxyProcess implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(30);

    private final ChildProcess child;
    private final Path socketDir;
    private final Path socket;
    private final Path log;

    private HaproxyProcess(ChildProcess child, Path socketDir, Path log) {
        this.child = child;
        this.socketDir = socketDir;
        this.socket = socketDir.resolve("admin.sock");
        this.log = log;
    }

    /**
     * @return {@code haproxy} on the {@code PATH}, else in the sbin directories Debian installs it to (not on a
     *     user's {@code PATH}); empty when there is none
     */
    public static Optional<Path> find() {
        return Executables.find("haproxy");
    }

    /**
     * Writes the configuration, starts HAProxy and waits for its runtime API socket; stops it again if the socket
     * does not appear.
     *
     * @param binary the {@code haproxy} executable
     * @param dir    where the configuration and the log go
     * @param config the configuration, given the path its {@code stats socket ... level admin} must have
     * @return HAProxy, its socket in place
     * @throws IllegalStateException when it exits or the socket does not appear within 30 s (naming the log)
     */
    public static HaproxyProcess start(Path binary, Path dir, Function<Path, String> config)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path socketDir = Files.createTempDirectory("blade-haproxy");
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, config.apply(socketDir.resolve("admin.sock")));
        Path log = dir.resolve("haproxy.log");
        HaproxyProcess h = new HaproxyProcess(ChildProcess.start("haproxy",
            List.of(binary.toString(), "-db", "-f", cfg.toString()), log, log), socketDir, log);
        try {
            h.child.awaitReady(() -> Files.exists(h.socket), READY, "HAProxy's admin socket");
            return h;
        } catch (RuntimeException | InterruptedException e) {
            h.close();
            throw e;
        }
    }

    /** @return the runtime API's unix socket */
    public Path adminSocket() {
        return socket;
    }

    /** @return the file its output goes to */
    public Path log() {
        return log;
    }

    /** @return the child process it runs in */
    public ChildProcess process() {
        return child;
    }

    /**
     * Sends one command to the runtime API over the unix socket (non-interactive: HAProxy answers and closes).
     *
     * @return the answer
     */
    public String adminCommand(String command) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ch.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer buf = ByteBuffer.allocate(16384);
            StringBuilder out = new StringBuilder();
            while (ch.read(buf) >= 0) {
                buf.flip();
                out.append(StandardCharsets.US_ASCII.decode(buf));
                buf.clear();
            }
            return out.toString();
        }
    }

    /** Stops HAProxy by its pid and removes the socket's directory. */
    @Override
    public void close() throws InterruptedException {
        child.close();
        try {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(socketDir);
        } catch (IOException e) {
            System.err.println("cannot remove " + socketDir + ": " + e);
        }
    }
}
