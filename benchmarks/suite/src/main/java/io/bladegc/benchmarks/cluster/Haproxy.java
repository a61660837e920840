package io.bladegc.benchmarks.cluster;

import io.bladegc.testkit.HaproxyProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * HAProxy in front of the demo backends, with a generated configuration: one HTTP frontend on 127.0.0.1, backend
 * {@value #BACKEND} with servers {@code s1..sN} in round robin, {@code retry-on 503} (and connection failures, empty
 * responses, response timeouts) with {@code option redispatch 1}, so a 503 is retried on another server; the runtime
 * API on a unix socket at {@code level admin} (what the coordinator drives). Runs as a {@link HaproxyProcess}: in the
 * foreground, stopped by pid. Thread-safe.
 */
public final class Haproxy implements AutoCloseable {
    /** The backend's name in the configuration. */
    public static final String BACKEND = "app";

    private final HaproxyProcess process;
    private final int frontendPort;

    private Haproxy(HaproxyProcess process, int frontendPort) {
        this.process = process;
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
        return new Haproxy(HaproxyProcess.start(binary, dir, socket -> config(socket, frontendPort, backendPorts)),
            frontendPort);
    }

    /** @return the configuration {@link #start} writes */
    static String config(Path socket, int frontendPort, List<Integer> backendPorts) {
        StringBuilder b = new StringBuilder();
        b.append("global\n")
            .append("  stats socket ").append(socket).append(" mode 600 level admin\n")
            .append("  maxconn 5000\n")
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
        return process.adminSocket();
    }

    /**
     * {@code show stat}, the rows of backend {@value #BACKEND} (its servers and the {@code BACKEND} total).
     *
     * @return row name to: {@code stot} (sessions), {@code wretr} (retries), {@code wredis} (redispatches),
     *     {@code hrsp_2xx}, {@code hrsp_5xx} (answers by status class)
     */
    public Map<String, Map<String, Long>> stats() throws IOException {
        String[] lines = process.adminCommand("show stat").split("\n");
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
        for (String line : process.adminCommand("show servers state " + BACKEND).split("\n")) {
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
        process.close();
    }
}
