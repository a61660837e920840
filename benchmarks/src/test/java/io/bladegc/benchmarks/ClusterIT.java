package io.bladegc.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Flow 2 end to end with real processes: HAProxy (runtime API on a unix socket, {@code retry-on 503} with
 * {@code option redispatch}), the coordinator jar with the HAProxy adapter and K=1, and three demo backends on Jetty
 * in child JVMs running the built agent in coordinated mode. Open-loop load goes through HAProxy's frontend.
 *
 * <p>Checked: no client-visible error; never more than one node collecting at any instant (from the coordinator's
 * events, polled every 100 ms, and from its {@code collecting} list); every node was granted slots and its own JVM
 * reports forced collections; a server is out of HAProxy's rotation only around a grant of its own node.
 */
class ClusterIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HAPROXY = "/usr/sbin/haproxy";
    private static final List<String> NODES = List.of("n1", "n2", "n3");
    private static final long SLACK_MS = 150;

    @Test
    void atMostOneNodeCollectsAndNoRequestFails() throws Exception {
        Path tmp = Files.createTempDirectory("blade-cluster");
        Path sock = tmp.resolve("admin.sock");
        int coordinatorPort = freePort();
        int frontendPort = freePort();
        int[] backendPorts = {freePort(), freePort(), freePort()};
        List<AutoCloseable> started = new ArrayList<>();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        try {
            // HAProxy first, so the coordinator's adapter finds its socket
            Path cfg = tmp.resolve("haproxy.cfg");
            Files.writeString(cfg, haproxyConfig(sock, frontendPort, backendPorts));
            started.add(child("haproxy", List.of(HAPROXY, "-db", "-f", cfg.toString())));
            waitFor(() -> Files.exists(sock), "HAProxy's admin socket");

            started.add(child("coordinator", List.of(java(), "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-jar", DemoProcess.requiredProperty("blade.coordinator.jar"), "--port", "" + coordinatorPort,
                "--haproxy", sock.toString(), "--haproxy-servers", "n1=app/s1,n2=app/s2,n3=app/s3",
                "--lease", "5s")));
            URI coordinator = URI.create("http://127.0.0.1:" + coordinatorPort);
            waitFor(() -> status(http, coordinator.resolve("/health")) == 200, "the coordinator's /health");

            List<DemoProcess> backends = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                DemoProcess d = DemoProcess.start("cluster-" + NODES.get(i), List.of(
                    "-javaagent:" + DemoProcess.requiredProperty("blade.agent.jar") + "=coordinator=" + coordinator
                        + ",nodeId=" + NODES.get(i),
                    "-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy", "-Xms256m", "-Xmx256m", "-Xmn48m",
                    "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1", "-XX:+AlwaysPreTouch",
                    "-Djava.util.logging.SimpleFormatter.format=%4$s %5$s%6$s%n"),
                    List.of("--port", "" + backendPorts[i], "--live-mb", "64", "--garbage-kb", "128",
                        "--churn-kb", "8", "--blade", "on", "--threads", "16"));
                started.add(d);
                backends.add(d);
            }
            waitFor(() -> members(http, coordinator) == 3, "three members at the coordinator");

            Poller poller = new Poller(http, coordinator, sock);
            Thread pollThread = new Thread(poller, "cluster-poller");
            pollThread.setDaemon(true);
            pollThread.start();
            // node counters when the measured window starts: start-up collections (the live set being built while the
            // nodes join and queue) are not judged
            Map<String, long[]> baseline = new HashMap<>();
            LoadResult load;
            try {
                load = OpenLoopLoad.builder(URI.create("http://127.0.0.1:" + frontendPort + "/work"))
                    .rate(300)
                    .warmup(Duration.ofSeconds(5))
                    .duration(Duration.ofSeconds(20))
                    .timeout(Duration.ofSeconds(10))
                    .onMeasureStart(() -> {
                        for (int i = 0; i < 3; i++) {
                            baseline.put(NODES.get(i), counters(http, backends.get(i)));
                        }
                    })
                    .build()
                    .run();
            } finally {
                poller.stop.set(true);
                pollThread.join(5_000);
            }
            Map<String, Map<String, Long>> haproxyStats = haproxyStats(sock);

            // (a) the coordinator's view: grant intervals from its events, and its collecting list at every poll
            List<Grant> grants = poller.grants();
            Map<String, Integer> grantsPerNode = new TreeMap<>();
            NODES.forEach(n -> grantsPerNode.put(n, 0));
            grants.forEach(g -> grantsPerNode.merge(g.node, 1, Integer::sum));
            int maxConcurrent = maxConcurrent(grants);

            // (b) each backend's own record: its GC notifications and the node's Forced / Escaped counters
            Map<String, String> perBackend = new LinkedHashMap<>();
            Map<String, JsonNode> nodeStats = new HashMap<>();
            for (int i = 0; i < 3; i++) {
                JsonNode stats = JSON.readTree(http.send(HttpRequest.newBuilder(backends.get(i).uri("/stats")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
                nodeStats.put(NODES.get(i), stats);
                int pauses = 0;
                for (JsonNode gc : stats.get("gcPauses")) {
                    if (!gc.get("gc").asText().endsWith(" Cycles")) {
                        pauses++;
                    }
                }
                JsonNode node = stats.get("node");
                long[] base = baseline.getOrDefault(NODES.get(i), new long[2]);
                perBackend.put(NODES.get(i), String.format("pauses=%d Forced=%s (measured %d) Escaped=%s (measured %d)",
                    pauses, node.path("Forced").asText("?"), node.path("Forced").asLong() - base[0],
                    node.path("Escaped").asText("?"), node.path("Escaped").asLong() - base[1]));
            }

            List<String> rotationViolations = poller.rotationViolations(grants);
            System.out.printf("ClusterIT: grants per node %s, max concurrent grants (events) %d, max collecting "
                    + "(polls) %d, polls %d, events seen %d, expired %d%nbackends: %s%nhaproxy: %s%n"
                    + "server-out samples %d, violations %s%n%s%n",
                grantsPerNode, maxConcurrent, poller.maxCollecting, poller.polls, poller.events.size(),
                poller.count("EXPIRED"), perBackend, haproxyStats, poller.outSamples,
                rotationViolations.subList(0, Math.min(10, rotationViolations.size())), load);
            System.out.printf("latency ok p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n",
                load.okPercentileMicros(50) / 1000.0, load.okPercentileMicros(99) / 1000.0,
                load.okPercentileMicros(99.9) / 1000.0, load.okLatency().getMaxValue() / 1000.0);

            assertThat(poller.pollErrors).as("coordinator/HAProxy polls that failed").isLessThan(5);
            assertThat(load.ok()).isPositive();
            assertThat(load.shed()).as("503s that reached the client (HAProxy retries them elsewhere)").isZero();
            assertThat(load.otherStatus()).as("statuses other than 2xx: %s", load.otherStatuses()).isZero();
            assertThat(load.ioErrors() + load.timeouts() + load.unfinished()).as("failed requests").isZero();

            assertThat(maxConcurrent).as("grants open at once, from the coordinator's events").isLessThanOrEqualTo(1);
            assertThat(poller.maxCollecting).as("collecting nodes in any /v1/cluster poll").isLessThanOrEqualTo(1);
            assertThat(poller.count("EXPIRED")).as("leases that ran out").isZero();
            for (String n : NODES) {
                assertThat(grantsPerNode.get(n)).as("grants for %s", n).isPositive();
                JsonNode node = nodeStats.get(n).get("node");
                long[] base = baseline.get(n);
                assertThat(base).as("counters of %s at the start of the measured window", n).isNotNull();
                long forced = node.path("Forced").asLong() - base[0];
                long escaped = node.path("Escaped").asLong() - base[1];
                assertThat(forced).as("collections %s forced inside a grant while measured: %s", n, node).isPositive();
                // a node whose threshold comes while another holds the slot may collect on its own before its turn
                // (the lead time does not include the queue): counted, at most half of its collections
                assertThat(escaped).as("collections %s took on its own while measured (forced %d)", n, forced)
                    .isLessThanOrEqualTo(Math.max(1, forced / 2));
            }
            assertThat(poller.outSamples).as("polls that saw a server out of rotation").isPositive();
            assertThat(rotationViolations).as("a server out of rotation with no grant of its node nearby").isEmpty();
        } finally {
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    started.get(i).close();
                } catch (Exception e) {
                    System.err.println("cannot stop a child: " + e);
                }
            }
            try (var files = Files.walk(tmp)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (java.io.IOException e) {
                System.err.println("cannot remove " + tmp + ": " + e);
            }
        }
    }

    private static String haproxyConfig(Path sock, int frontendPort, int[] backendPorts) {
        StringBuilder b = new StringBuilder();
        b.append("global\n")
            .append("  stats socket ").append(sock).append(" mode 600 level admin\n")
            .append("  maxconn 2000\n")
            .append("defaults\n")
            .append("  mode http\n")
            .append("  timeout connect 1s\n")
            .append("  timeout client 30s\n")
            .append("  timeout server 5s\n")
            .append("  timeout http-keep-alive 30s\n")
            .append("frontend fe\n")
            .append("  bind 127.0.0.1:").append(frontendPort).append('\n')
            .append("  default_backend app\n")
            .append("backend app\n")
            .append("  balance roundrobin\n")
            .append("  retry-on 503 conn-failure empty-response response-timeout\n")
            .append("  retries 3\n")
            .append("  option redispatch 1\n");
        for (int i = 0; i < backendPorts.length; i++) {
            b.append("  server s").append(i + 1).append(" 127.0.0.1:").append(backendPorts[i]).append('\n');
        }
        return b.toString();
    }

    /** A grant from the coordinator's events, in its clock; {@code end} is MAX_VALUE while still open. */
    record Grant(String node, long epoch, long start, long end) {
    }

    static int maxConcurrent(List<Grant> grants) {
        List<long[]> edges = new ArrayList<>(); // {time, +1/-1}; ends before starts at the same millisecond
        for (Grant g : grants) {
            edges.add(new long[] {g.start, 1});
            edges.add(new long[] {g.end, -1});
        }
        edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int open = 0;
        int max = 0;
        for (long[] e : edges) {
            open += (int) e[1];
            max = Math.max(max, open);
        }
        return max;
    }

    /** Polls /v1/cluster and HAProxy's server states every 100 ms. */
    static final class Poller implements Runnable {
        final HttpClient http;
        final URI cluster;
        final Path sock;
        final AtomicBoolean stop = new AtomicBoolean();
        final Set<String> events = new LinkedHashSet<>(); // each event's JSON, in order of first sight
        final List<long[]> offsets = new ArrayList<>(); // coordinator clock minus local clock
        final List<Object[]> outs = new ArrayList<>(); // {node, local time} a server was seen out of rotation
        int polls;
        int pollErrors;
        int maxCollecting;
        int outSamples;

        Poller(HttpClient http, URI coordinator, Path sock) {
            this.http = http;
            this.cluster = coordinator.resolve("/v1/cluster");
            this.sock = sock;
        }

        @Override
        public void run() {
            while (!stop.get()) {
                long next = System.currentTimeMillis() + 100;
                try {
                    long before = System.currentTimeMillis();
                    JsonNode view = JSON.readTree(http.send(HttpRequest.newBuilder(cluster).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                    long after = System.currentTimeMillis();
                    offsets.add(new long[] {after - before, view.get("now").asLong() - (before + after) / 2});
                    maxCollecting = Math.max(maxCollecting, view.get("collecting").size());
                    for (JsonNode e : view.get("recentEvents")) {
                        events.add(e.toString());
                    }
                    long t = System.currentTimeMillis();
                    for (String line : adminCommand(sock, "show servers state app").split("\n")) {
                        String[] f = line.trim().split(" ");
                        // be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight ...
                        if (f.length > 7 && f[1].equals("app") && f[3].matches("s[1-3]")) {
                            boolean out = Integer.parseInt(f[6]) != 0 || Integer.parseInt(f[7]) == 0;
                            if (out) {
                                outSamples++;
                                outs.add(new Object[] {"n" + f[3].substring(1), t});
                            }
                        }
                    }
                    polls++;
                } catch (Exception e) {
                    pollErrors++;
                    System.err.println("poll failed: " + e);
                }
                long sleep = next - System.currentTimeMillis();
                if (sleep > 0) {
                    try {
                        Thread.sleep(sleep);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }

        long count(String type) {
            return parsedEvents().stream().filter(e -> e.get("type").asText().equals(type)).count();
        }

        List<JsonNode> parsedEvents() {
            List<JsonNode> out = new ArrayList<>();
            for (String s : events) {
                try {
                    out.add(JSON.readTree(s));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            out.sort(Comparator.comparingLong(e -> e.get("at").asLong()));
            return out;
        }

        /** GRANTED opens a node's grant; RELEASED, EXPIRED, CANCELLED or LEFT/LOST closes it. */
        List<Grant> grants() {
            List<Grant> out = new ArrayList<>();
            Map<String, long[]> open = new HashMap<>(); // node -> {epoch, start}
            for (JsonNode e : parsedEvents()) {
                String node = e.get("node").asText();
                long at = e.get("at").asLong();
                switch (e.get("type").asText()) {
                    case "GRANTED" -> {
                        long[] prev = open.put(node, new long[] {e.path("epoch").asLong(), at});
                        if (prev != null) {
                            out.add(new Grant(node, prev[0], prev[1], at)); // should not happen; kept visible
                        }
                    }
                    case "RELEASED", "EXPIRED", "CANCELLED", "LEFT", "LOST" -> {
                        long[] g = open.remove(node);
                        if (g != null) {
                            out.add(new Grant(node, g[0], g[1], at));
                        }
                    }
                    default -> { }
                }
            }
            open.forEach((node, g) -> out.add(new Grant(node, g[0], g[1], Long.MAX_VALUE)));
            return out;
        }

        /** Samples of a server out of rotation with no grant of its node within SLACK_MS, in the coordinator's clock. */
        List<String> rotationViolations(List<Grant> grants) {
            // the offset measured by the fastest round trip is the most precise
            long offset = offsets.stream().min(Comparator.comparingLong(o -> o[0])).map(o -> o[1]).orElse(0L);
            List<String> bad = new ArrayList<>();
            for (Object[] o : outs) {
                String node = (String) o[0];
                long t = (Long) o[1] + offset;
                boolean covered = grants.stream().anyMatch(g -> g.node.equals(node)
                    && g.start - SLACK_MS <= t && t <= (g.end == Long.MAX_VALUE ? Long.MAX_VALUE : g.end + SLACK_MS));
                if (!covered) {
                    bad.add(node + "@" + t);
                }
            }
            return bad;
        }
    }

    /** Sends one command to HAProxy's runtime API (non-interactive: it answers and closes). */
    static String adminCommand(Path sock, String command) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(sock));
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

    /** Per row (backend and servers of app): retries, redispatches, 5xx answers from the server, total sessions. */
    static Map<String, Map<String, Long>> haproxyStats(Path sock) throws IOException {
        String[] lines = adminCommand(sock, "show stat").split("\n");
        List<String> header = Arrays.asList(lines[0].replaceFirst("^# ", "").split(","));
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            if (f.length < header.size() || !f[0].equals("app")) {
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

    /** @return the node's {Forced, Escaped} counters */
    private static long[] counters(HttpClient http, DemoProcess backend) {
        try {
            JsonNode node = JSON.readTree(http.send(HttpRequest.newBuilder(backend.uri("/stats")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).get("node");
            return new long[] {node.path("Forced").asLong(), node.path("Escaped").asLong()};
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the node counters of " + backend.uri("/"), e);
        }
    }

    private static int members(HttpClient http, URI coordinator) {
        try {
            return JSON.readTree(http.send(HttpRequest.newBuilder(coordinator.resolve("/v1/cluster")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).get("members").size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static int status(HttpClient http, URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(1)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    private static void waitFor(Check check, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!check.ok()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(100);
        }
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A child process with its output in target/cluster-{name}.log, stopped by its own pid. */
    private static AutoCloseable child(String name, List<String> cmd) throws IOException {
        Path log = Path.of("target", "cluster-" + name + ".log");
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return () -> {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        };
    }
}
