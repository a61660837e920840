package io.bladegc.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * nginx (1.19.5 or later, for {@code -e}) in a child process, with everything it writes inside one directory of the
 * caller's, its prefix ({@code -p}): the configuration {@code nginx.conf}, the pid file, the access log
 * {@code access.log}, the temporary files under {@code temp/}; its error log goes to its stderr ({@code -e stderr},
 * {@code error_log stderr}), which goes to {@code nginx.log}. No file of the system's nginx is read or written. Runs in
 * the foreground ({@code daemon off}) as a master and one worker; ready when its pid file exists (written once it
 * listens) and its port accepts a connection (within 30 s); stopped by the master's pid ({@link ChildProcess}), on
 * whose SIGTERM the worker exits too. Thread-safe.
 *
 * <p>The caller writes the servers: the inside of the {@code http} block. Around it this class writes
 * {@code user <this JVM's user>}, so that run as root the worker is root too and may use the temporary directories
 * (nginx's default, {@code nobody}, has no group of that name on Debian; not as root, nginx ignores the directive with
 * a warning), and the access log in the format {@value #ACCESS_LOG_FORMAT_NAME}: per request, separated by tabs, the
 * status the client got, {@code $upstream_status} (every upstream attempt's status, e.g. {@code 503, 200}),
 * {@code $upstream_addr}, {@code $request_time} and the request line.
 */
public final class NginxProcess implements AutoCloseable {
    /** The name of the access log's format, which the caller's servers may also use. */
    public static final String ACCESS_LOG_FORMAT_NAME = "upstreams";

    private static final Duration READY = Duration.ofSeconds(30);

    private final ChildProcess child;
    private final Path dir;
    private final int port;

    private NginxProcess(ChildProcess child, Path dir, int port) {
        this.child = child;
        this.dir = dir;
        this.port = port;
    }

    /** @return {@code nginx} on the {@code PATH}, else in {@code /usr/sbin} (Debian); empty when there is none */
    public static Optional<Path> find() {
        return Executables.find("nginx");
    }

    /**
     * Writes the configuration, starts nginx and waits until it listens; stops it again when it does not.
     *
     * @param binary the {@code nginx} executable
     * @param dir    its prefix: the configuration, pid file, logs and temporary files go there
     * @param port   the port on 127.0.0.1 that one of {@code servers} listens on, awaited
     * @param servers the inside of the {@code http} block: upstreams, servers
     * @return nginx, listening
     * @throws IllegalStateException when it exits or does not listen within 30 s (naming its log)
     */
    public static NginxProcess start(Path binary, Path dir, int port, String servers)
            throws IOException, InterruptedException {
        Path prefix = dir.toAbsolutePath();
        Files.createDirectories(prefix.resolve("temp"));
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, config(prefix, servers));
        Path log = prefix.resolve("nginx.log");
        ChildProcess child = ChildProcess.start("nginx", List.of(binary.toString(), "-p", prefix.toString(), "-c",
            conf.toString(), "-e", "stderr", "-g", "daemon off;"), log, log);
        NginxProcess n = new NginxProcess(child, prefix, port);
        try {
            child.awaitReady(() -> Files.exists(n.pidFile()) && accepts(port), READY, "nginx on port " + port);
            return n;
        } catch (RuntimeException | InterruptedException e) {
            n.close();
            throw e;
        }
    }

    /** @return the configuration {@link #start} writes into {@code prefix} */
    static String config(Path prefix, String servers) {
        Path temp = prefix.resolve("temp");
        return String.join("\n",
            "user " + System.getProperty("user.name") + ";",
            "worker_processes 1;",
            "pid " + prefix.resolve("nginx.pid") + ";",
            "error_log stderr notice;",
            "events {",
            "    worker_connections 1024;",
            "}",
            "http {",
            "    log_format " + ACCESS_LOG_FORMAT_NAME
                + " '$status\\t$upstream_status\\t$upstream_addr\\t$request_time\\t$request';",
            "    access_log " + prefix.resolve("access.log") + " " + ACCESS_LOG_FORMAT_NAME + ";",
            "    client_body_temp_path " + temp.resolve("client_body") + ";",
            "    proxy_temp_path " + temp.resolve("proxy") + ";",
            "    fastcgi_temp_path " + temp.resolve("fastcgi") + ";",
            "    uwsgi_temp_path " + temp.resolve("uwsgi") + ";",
            "    scgi_temp_path " + temp.resolve("scgi") + ";",
            servers,
            "}",
            "");
    }

    private static boolean accepts(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        }
    }

    private Path pidFile() {
        return dir.resolve("nginx.pid");
    }

    /** @return the access log, in the format {@value #ACCESS_LOG_FORMAT_NAME} (see the class comment) */
    public Path accessLog() {
        return dir.resolve("access.log");
    }

    /** @return the file its output and error log go to */
    public Path log() {
        return child.stderr();
    }

    /** @return {@code http://127.0.0.1:<port><path>}, on the port {@link #start} awaited */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** @return the child process it runs in (the master) */
    public ChildProcess process() {
        return child;
    }

    /** Stops nginx by the master's pid: SIGTERM (fast shutdown, the worker with it), SIGKILL after 10 s. */
    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
