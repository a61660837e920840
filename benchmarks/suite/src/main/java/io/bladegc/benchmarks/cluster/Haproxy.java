package io.bladegc.benchmarks.cluster;

import io.bladegc.testkit.ChildProcess;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HAProxy in front of the demo backends, with a generated configuration: one HTTP frontend on 127.0.0.1, backend
 * {@value #BACKEND} with servers {@code s1..sN} in round robin, {@code retry-on 503} (and connection failures, empty
 * responses, response timeouts) with {@code option redispatch 1}, so a 503 is retried on another server; the runtime
 * API on a unix socket at {@code level admin} (what the coordinator drives). Runs in the foreground ({@code -db}),
 * stopped by pid. Thread-safe.
 */
public final class Haproxy implements AutoCloseable {
    /** The backend's name in the configuration. */
    public static final String BACKEND = "app";

    private final ChildProcess child;
    private final Path socketDir;
    private final Path socket;
    private final int frontendPort;

    private Haproxy(ChildProcess child, Path socketDir, int frontendPort) {
        this.child = child;
        this.socketDir = socketDir;
        this.socket = socketDir.resolve("admin.sock");
        this.frontendPort = frontendPort;
    }

    /**
     * Writes {@code <dir>/haproxy.cfg}, starts HAProxy (output in {@code <dir>/haproxy.log}) and waits up to 30 s for
     * its admin socket, which lives in a temporary directory of its own (unix socket paths are short).
     *
     * @param binary       the {@code haproxy} executable
     * @param dir          where the configuration and the log go
     * @param frontendPort the port clients connect to
     * @param backendPorts the servers' ports on 127.0.0.1, {@code s1} first
     */
    public static Haproxy start(Path binary, Path dir, int frontendPort, List<Integer> backendPorts)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path socketDir = Files.createTempDirectory("blade-haproxy");
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, config(socketDir.resolve("admin.sock"), frontendPort, backendPorts));
        Path log = dir.resolve("haproxy.log");
        Haproxy h = new Haproxy(ChildProcess.start("haproxy", List.of(binary.toString(), "-db", "-f", cfg.toString()),
            log, log), socketDir, frontendPort);
        try {
            h.child.awaitReady(() -> Files.exists(h.socket), Duration.ofSeconds(30), "HAProxy's admin socket");
            return h;
        } catch (RuntimeException | InterruptedException e) {
            h.close();
            throw e;
        }
    }

    /** @return the configuration {@link #start} writes */
    static String config(Path socket, int frontendPort, List<Integer> backendPorts) {
        StringBuilder b = new StringBuilder();
        b.append("global\n")
            .append("  stats socket ").append(socket).append(" mode 600 level admin\n")
            .append("  maxconn 2000\n")
            .append("defaults\n")
            .append("  mode http\n")
            .append("  timeout connect 1s\n")
            .append("  timeout client 30s\n")
            .append("  timeout server 5s\n")
            .append("  timeout http-keep-alive 30s\n")
            .append("frontend fe\n")
            .append("  bind 127.0.0.1:").append(frontendPort).append('\n')
            .append("  default_backend ").append(BACKEND).append('\n')
            .append("backend ").append(BACKEND).append('\n')
            .append("  balance roundrobin\n")
            .append("  retry-on 503 conn-failure empty-response response-timeout\n")
            .append("  retries 3\n")
            .append("  option redispatch 1\n");
        for (int i = 0; i < backendPorts.size(); i++) {
            b.append("  server ").append(server(i)).append(" 127.0.0.1:").append(backendPorts.get(i)).append('\n');
        }
        return b.toString();
    }

    /** @return the name of the {@code index}-th server (from 0): {@code s1}, {@code s2}, ... */
    public static String server(int index) {
        return "s" + (index + 1);
    }

    /** @return {@code http://127.0.0.1:<frontend port><path>} */
    public URI frontend(String path) {
        return URI.create("http://127.0.0.1:" + frontendPort + path);
    }

    /** @return the runtime API's unix socket */
    public Path adminSocket() {
        return socket;
    }

    /**
     * Sends one command to the runtime API (non-interactive: HAProxy answers and closes).
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

    /**
     * {@code show stat}, the rows of backend {@value #BACKEND} (its servers and the {@code BACKEND} total).
     *
     * @return row name to: {@code stot} (sessions), {@code wretr} (retries), {@code wredis} (redispatches),
     *     {@code hrsp_2xx}, {@code hrsp_5xx} (answers by status class)
     */
    public Map<String, Map<String, Long>> stats() throws IOException {
        String[] lines = adminCommand("show stat").split("\n");
        List<String> header = Arrays.asList(lines[0].replaceFirst("^# ", "").split(","));
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            if (f.length < header.size() || !f[0].equals(BACKEND)) {
                continue;
            }
            Map<String, Long> row = new LinkedHashMap<>();
            for (String col : List.of("stot", "wretr", "wredis", "hrsp_2xx", "hrsp_5xx")) {
                String v = f[header.indexOf(col)];
                row.put(col, v.isEmpty() ? 0 : Long.parseLong(v));
            }
            out.put(f[1], row);
        }
        return out;
    }

    /**
     * {@code show servers state}: which servers are out of rotation now (administratively drained or in
     * maintenance, or with weight 0).
     *
     * @return the indexes (from 0) of the servers out of rotation
     */
    public List<Integer> serversOutOfRotation() throws IOException {
        List<Integer> out = new ArrayList<>();
        for (String line : adminCommand("show servers state " + BACKEND).split("\n")) {
            String[] f = line.trim().split(" ");
            // be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight ...
            if (f.length > 7 && f[1].equals(BACKEND) && f[3].matches("s[0-9]+")) {
                if (Integer.parseInt(f[6]) != 0 || Integer.parseInt(f[7]) == 0) {
                    out.add(Integer.parseInt(f[3].substring(1)) - 1);
                }
            }
        }
        return out;
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
