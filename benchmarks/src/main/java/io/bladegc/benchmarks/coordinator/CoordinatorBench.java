package io.bladegc.benchmarks.coordinator;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Hand-run benchmark of the coordinator (not a test): starts {@code blade-coordinator.jar} as a separate JVM on a free
 * loopback port and measures
 * <ol>
 *   <li>{@code latency}: one client, one keep-alive connection, closed loop of acquire (granted at once: the node
 *       holds no grant and K is large) + release; HdrHistogram of the acquire round trip and of the whole cycle;</li>
 *   <li>{@code throughput}: several connections (one node each), each a closed loop of acquire + release, for a
 *       fixed time; cycles per second;</li>
 *   <li>{@code memory}: heap used after a full GC ({@code jcmd GC.run}, then {@code GC.heap_info}) before and after
 *       joining N nodes; bytes per registered node.</li>
 * </ol>
 * The client is deliberately lean: a blocking {@link Socket} per connection, HTTP/1.1 keep-alive, requests written as
 * bytes, and only the status line, {@code Content-Length} and (for acquire) the {@code epoch} field parsed.
 *
 * <p>Usage:
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) io.bladegc.benchmarks.coordinator.CoordinatorBench \
 *     [--jar coordinator/target/blade-coordinator.jar] [--mode all|latency|throughput|memory] \
 *     [--warmup-cycles 20000] [--cycles 200000] [--connections 1,2,4,8,16] [--seconds 20] [--nodes 100000] \
 *     [--idle-members 0] [--server-jvm-opts "-Xmx512m"]
 * </pre>
 */
public final class CoordinatorBench {
    private static final Pattern EPOCH = Pattern.compile("\"epoch\":(\\d+)");
    private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total\\s+(\\d+)K,\\s+used\\s+(\\d+)K");

    private CoordinatorBench() {}

    public static void main(String[] args) throws Exception {
        String jar = "coordinator/target/blade-coordinator.jar";
        String mode = "all";
        int warmupCycles = 20_000;
        int cycles = 200_000;
        int[] connections = {1, 2, 4, 8, 16};
        int seconds = 20;
        int nodes = 100_000;
        String serverOpts = "";
        int idleMembers = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                usage();
                return;
            }
            if (i + 1 >= args.length) {
                usage();
                System.exit(2);
            }
            String v = args[++i];
            switch (a) {
                case "--jar" -> jar = v;
                case "--mode" -> mode = v;
                case "--warmup-cycles" -> warmupCycles = Integer.parseInt(v);
                case "--cycles" -> cycles = Integer.parseInt(v);
                case "--connections" -> {
                    String[] parts = v.split(",");
                    connections = new int[parts.length];
                    for (int j = 0; j < parts.length; j++) {
                        connections[j] = Integer.parseInt(parts[j].trim());
                    }
                }
                case "--seconds" -> seconds = Integer.parseInt(v);
                case "--nodes" -> nodes = Integer.parseInt(v);
                case "--server-jvm-opts" -> serverOpts = v;
                case "--idle-members" -> idleMembers = Integer.parseInt(v);
                default -> {
                    System.err.println("unknown option " + a);
                    usage();
                    System.exit(2);
                }
            }
        }
        System.out.printf("machine: %d CPUs seen by the JVM, %s %s; client and server share them (nothing pinned)%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"));
        boolean all = mode.equals("all");
        if (all || mode.equals("latency")) {
            try (Server s = Server.start(jar, serverOpts)) {
                latency(s.port, warmupCycles, cycles);
            }
        }
        if (all || mode.equals("throughput")) {
            try (Server s = Server.start(jar, serverOpts)) {
                if (idleMembers > 0) {
                    long t0 = System.nanoTime();
                    try (Conn c = new Conn(s.port, "unused")) {
                        for (int i = 0; i < idleMembers; i++) {
                            c.postNode("idle-" + i, "join", "");
                        }
                    }
                    System.out.printf("joined %,d idle members first (%.1f s); they stay members (member timeout 600 s)%n",
                            idleMembers, (System.nanoTime() - t0) / 1e9);
                }
                for (int c : connections) {
                    throughput(s.port, c, Math.max(2, seconds / 4), seconds);
                }
            }
        }
        if (all || mode.equals("memory")) {
            try (Server s = Server.start(jar, serverOpts)) {
                memory(s, nodes);
            }
        }
    }

    private static void usage() {
        System.out.println("Usage: java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) "
                + "io.bladegc.benchmarks.coordinator.CoordinatorBench [--jar coordinator/target/blade-coordinator.jar] "
                + "[--mode all|latency|throughput|memory] [--warmup-cycles 20000] [--cycles 200000] "
                + "[--connections 1,2,4,8,16] [--seconds 20] [--nodes 100000] [--idle-members 0] [--server-jvm-opts \"-Xmx512m\"]");
    }

    // ---------------------------------------------------------------------------------------------------- latency

    private static void latency(int port, int warmup, int cycles) throws IOException {
        Histogram acquire = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        Histogram cycle = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        try (Conn c = new Conn(port, "lat-1")) {
            c.post("join", "");
            long gcId = 1;
            for (int i = 0; i < warmup; i++) {
                long epoch = c.acquire(gcId++);
                c.release(epoch);
            }
            long start = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
                long t0 = System.nanoTime();
                long epoch = c.acquire(gcId++);
                long t1 = System.nanoTime();
                c.release(epoch);
                long t2 = System.nanoTime();
                acquire.recordValue(t1 - t0);
                cycle.recordValue(t2 - t0);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            System.out.printf("%nlatency: 1 connection, %d warm-up cycles, %d measured cycles in %.1f s%n",
                    warmup, cycles, secs);
            System.out.println("| | p50 (µs) | p90 (µs) | p99 (µs) | p99.9 (µs) | p99.99 (µs) | max (µs) |");
            System.out.println("|---|---|---|---|---|---|---|");
            row("acquire (granted) round trip", acquire);
            row("acquire + release cycle", cycle);
        }
    }

    private static void row(String name, Histogram h) {
        System.out.printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |%n", name,
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3, h.getValueAtPercentile(99.99) / 1e3, h.getMaxValue() / 1e3);
    }

    // ------------------------------------------------------------------------------------------------- throughput

    private static void throughput(int port, int connections, int warmupSeconds, int seconds) throws Exception {
        AtomicBoolean measuring = new AtomicBoolean(false);
        AtomicBoolean stop = new AtomicBoolean(false);
        AtomicLong errors = new AtomicLong();
        long[] counts = new long[connections];
        Histogram[] hists = new Histogram[connections];
        CountDownLatch ready = new CountDownLatch(connections);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < connections; t++) {
            int idx = t;
            hists[t] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            Thread th = new Thread(() -> {
                try (Conn c = new Conn(port, "tp" + connections + "-" + idx)) {
                    c.post("join", "");
                    ready.countDown();
                    long gcId = 1;
                    long n = 0;
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        long epoch = c.acquire(gcId++);
                        c.release(epoch);
                        long t1 = System.nanoTime();
                        if (measuring.get()) {
                            n++;
                            hists[idx].recordValue(t1 - t0);
                        }
                    }
                    counts[idx] = n;
                } catch (IOException | RuntimeException e) {
                    errors.incrementAndGet();
                    System.err.println("connection " + idx + ": " + e);
                    ready.countDown();
                }
            }, "tp-" + t);
            threads.add(th);
            th.start();
        }
        ready.await();
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        measuring.set(true);
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        measuring.set(false);
        long elapsed = System.nanoTime() - start;
        stop.set(true);
        for (Thread th : threads) {
            th.join();
        }
        long total = 0;
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        for (int t = 0; t < connections; t++) {
            total += counts[t];
            all.add(hists[t]);
        }
        System.out.printf("throughput: %2d connections: %,.0f cycles/s (%,.0f requests/s) over %d s after %d s warm-up;"
                        + " cycle p50 %.0f µs, p99 %.0f µs, max %.0f µs; errors %d%n",
                connections, total / (elapsed / 1e9), 2 * total / (elapsed / 1e9), seconds, warmupSeconds,
                all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(99) / 1e3, all.getMaxValue() / 1e3,
                errors.get());
    }

    // ----------------------------------------------------------------------------------------------------- memory

    private static void memory(Server s, int nodes) throws Exception {
        // Warm the code paths with a few joins of a node that is not counted, then measure from a full GC.
        try (Conn c = new Conn(s.port, "warm")) {
            for (int i = 0; i < 2000; i++) {
                c.post("join", "");
            }
            c.post("leave", "");
        }
        long before = s.heapUsedAfterFullGc();
        int threads = 4;
        Thread[] ts = new Thread[threads];
        AtomicLong refused = new AtomicLong();
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int idx = t;
            ts[t] = new Thread(() -> {
                try (Conn c = new Conn(s.port, "unused")) {
                    for (int i = idx; i < nodes; i += threads) {
                        int status = c.postNode("node-" + String.format("%06d", i), "join", "");
                        if (status != 200) {
                            refused.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        double joinSecs = (System.nanoTime() - t0) / 1e9;
        long after = s.heapUsedAfterFullGc();
        String members = s.get("/health");
        System.out.printf("%nmemory: joined %,d nodes (ids node-000000..) in %.1f s (%,.0f joins/s), %d refused%n",
                nodes, joinSecs, nodes / joinSecs, refused.get());
        System.out.printf("heap used after full GC: before %,d KiB, after %,d KiB: %,d bytes per node%n",
                before / 1024, after / 1024, (after - before) / Math.max(1, nodes - refused.get()));
        System.out.println("health after: " + members);
    }

    // ------------------------------------------------------------------------------------------------ the client

    /** One keep-alive HTTP/1.1 connection speaking for one node. */
    static final class Conn implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private final String node;
        private final byte[] buf = new byte[8192];
        private int len;
        private int pos;
        private String lastBody;

        Conn(int port, String node) throws IOException {
            this.node = node;
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress("127.0.0.1", port));
            out = socket.getOutputStream();
            in = socket.getInputStream();
        }

        long acquire(long gcId) throws IOException {
            int status = post("acquire", "{\"gcId\":" + gcId + ",\"leadMillis\":0}");
            Matcher m = EPOCH.matcher(lastBody);
            if (status != 200 || !m.find()) {
                throw new IOException("acquire answered " + status + " " + lastBody);
            }
            return Long.parseLong(m.group(1));
        }

        void release(long epoch) throws IOException {
            int status = post("release", "{\"epoch\":" + epoch + "}");
            if (status != 200) {
                throw new IOException("release answered " + status + " " + lastBody);
            }
        }

        int post(String op, String body) throws IOException {
            return postNode(node, op, body);
        }

        int postNode(String id, String op, String body) throws IOException {
            byte[] b = body.getBytes(StandardCharsets.US_ASCII);
            String head = "POST /v1/nodes/" + id + "/" + op + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + b.length + "\r\n\r\n";
            byte[] h = head.getBytes(StandardCharsets.US_ASCII);
            byte[] req = new byte[h.length + b.length];
            System.arraycopy(h, 0, req, 0, h.length);
            System.arraycopy(b, 0, req, h.length, b.length);
            out.write(req);
            out.flush();
            return readResponse();
        }

        /** Reads one response; returns its status, keeps its body in {@link #lastBody}. */
        private int readResponse() throws IOException {
            String statusLine = readLine();
            int status = Integer.parseInt(statusLine.substring(9, 12));
            int contentLength = 0;
            String line;
            while (!(line = readLine()).isEmpty()) {
                if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                    contentLength = Integer.parseInt(line.substring(15).trim());
                }
            }
            byte[] body = new byte[contentLength];
            for (int i = 0; i < contentLength; i++) {
                body[i] = (byte) readByte();
            }
            lastBody = new String(body, StandardCharsets.US_ASCII);
            return status;
        }

        private String readLine() throws IOException {
            StringBuilder sb = new StringBuilder(64);
            while (true) {
                int c = readByte();
                if (c == '\r') {
                    continue;
                }
                if (c == '\n') {
                    return sb.toString();
                }
                sb.append((char) c);
            }
        }

        private int readByte() throws IOException {
            if (pos == len) {
                len = in.read(buf);
                pos = 0;
                if (len <= 0) {
                    throw new IOException("connection closed by the coordinator");
                }
            }
            return buf[pos++] & 0xff;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ the server

    /** The coordinator as a separate JVM; {@link #close()} sends SIGTERM and waits. */
    static final class Server implements AutoCloseable {
        final Process process;
        final int port;

        private Server(Process process, int port) {
            this.process = process;
            this.port = port;
        }

        static Server start(String jar, String jvmOpts) throws Exception {
            int port;
            try (ServerSocket ss = new ServerSocket(0)) {
                port = ss.getLocalPort();
            }
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            for (String o : jvmOpts.trim().split("\\s+")) {
                if (!o.isEmpty()) {
                    cmd.add(o);
                }
            }
            cmd.addAll(List.of("-jar", jar, "--port", Integer.toString(port), "--k", "100000", "--min-healthy", "0",
                    "--lease", "60s", "--member-timeout", "600s", "--max-members", "100000"));
            System.out.println("\nserver: " + String.join(" ", cmd));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(Path.of("benchmarks/target/coordinator-bench-server.log").toFile()).start();
            Server s = new Server(p, port);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    s.get("/health");
                    return s;
                } catch (IOException e) {
                    if (System.nanoTime() > deadline || !p.isAlive()) {
                        p.destroyForcibly();
                        throw new IOException("coordinator did not start; see benchmarks/target/coordinator-bench-server.log");
                    }
                    Thread.sleep(100);
                }
            }
        }

        String get(String path) throws IOException {
            try (Socket sock = new Socket()) {
                sock.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                sock.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                String all = new String(sock.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                int i = all.indexOf("\r\n\r\n");
                return i < 0 ? all : all.substring(i + 4);
            }
        }

        long heapUsedAfterFullGc() throws Exception {
            jcmd("GC.run");
            jcmd("GC.run");
            String info = jcmd("GC.heap_info");
            Matcher m = HEAP_USED.matcher(info);
            if (!m.find()) {
                throw new IOException("cannot parse GC.heap_info: " + info);
            }
            return Long.parseLong(m.group(2)) * 1024;
        }

        private String jcmd(String command) throws Exception {
            Process j = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(process.pid()), command).redirectErrorStream(true).start();
            StringBuilder sb = new StringBuilder();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(j.getInputStream(), StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    sb.append(l).append('\n');
                }
            }
            j.waitFor();
            return sb.toString();
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        }
    }
}
