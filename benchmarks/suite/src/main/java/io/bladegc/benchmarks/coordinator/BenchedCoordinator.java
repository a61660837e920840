package io.bladegc.benchmarks.coordinator;

import io.bladegc.testkit.CoordinatorProcess;
import io.bladegc.testkit.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The coordinator as a separate JVM on a free loopback port, with K and the member limit out of the way
 * ({@code --k 100000 --min-healthy 0 --max-members 100000}), a lease of {@link #LEASE_SECONDS} s and a member timeout
 * of 600 s (members joined before a measurement stay live through it without heartbeats), run as a
 * {@link CoordinatorProcess}: {@link #close()} sends SIGTERM, waits, then kills it. Its output goes to
 * {@code benchmarks/suite/target/coordinator-bench-server.log}.
 */
final class BenchedCoordinator implements AutoCloseable {
    /**
     * The lease: every grant is released within milliseconds, and a fresh coordinator grants nothing for one lease (it
     * may be a restart), which {@link #start} waits out.
     */
    static final int LEASE_SECONDS = 5;

    private static final Pattern NOW = Pattern.compile("\"now\":(\\d+)");
    private static final Pattern GRANTS_FROM = Pattern.compile("\"grantsFrom\":(\\d+)");
    private static final Pattern MEMBERS = Pattern.compile("(?m)^blade_coordinator_members (\\S+)$");
    private static final Pattern HEAP_USED = Pattern.compile("heap\\s+total\\s+(\\d+)K,\\s+used\\s+(\\d+)K");

    private final CoordinatorProcess process;
    private final int port;

    private BenchedCoordinator(CoordinatorProcess process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts {@code java <jvmOpts> -jar <jar> ...} and returns once it answers and grants. */
    static BenchedCoordinator start(String jar, String jvmOpts) throws Exception {
        int port = FreePorts.one();
        List<String> jvm = new ArrayList<>();
        for (String o : jvmOpts.trim().split("\\s+")) {
            if (!o.isEmpty()) {
                jvm.add(o);
            }
        }
        CoordinatorProcess p = CoordinatorProcess.start("coordinator", Path.of(System.getProperty("java.home"), "bin",
                "java"), jvm, Path.of(jar), port, List.of("--k", "100000", "--min-healthy", "0",
                "--lease", LEASE_SECONDS + "s", "--member-timeout", "600s", "--max-members", "100000"),
            Path.of("benchmarks/suite/target/coordinator-bench-server.log"));
        System.out.println("\nserver: " + String.join(" ", p.process().command()));
        BenchedCoordinator s = new BenchedCoordinator(p, port);
        try {
            s.awaitGrants();
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
        return s;
    }

    int port() {
        return port;
    }

    /** @return the CPU time the coordinator's JVM has used so far (all its threads, user and system) */
    Duration cpuTime() {
        return ProcessHandle.of(process.process().pid()).orElseThrow().info().totalCpuDuration().orElseThrow();
    }

    /** @return the live members, from the {@code blade_coordinator_members} gauge, after two of its 100 ms refreshes */
    long members() throws Exception {
        Thread.sleep(200);
        String metrics = get("/metrics");
        Matcher m = MEMBERS.matcher(metrics);
        if (!m.find()) {
            throw new IOException("no blade_coordinator_members in /metrics");
        }
        return (long) Double.parseDouble(m.group(1));
    }

    /** @return the body of {@code GET path}, on a connection of its own */
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

    /** @return heap used after two full collections ({@code jcmd GC.run}, then {@code GC.heap_info}), bytes */
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

    /** A fresh coordinator grants nothing for one lease (restart safety): waits until that has passed. */
    private void awaitGrants() throws Exception {
        String view = get("/v1/cluster");
        Matcher now = NOW.matcher(view);
        Matcher from = GRANTS_FROM.matcher(view);
        if (now.find() && from.find()) {
            Thread.sleep(Math.max(0, Long.parseLong(from.group(1)) - Long.parseLong(now.group(1)) + 1));
        }
    }

    private String jcmd(String command) throws Exception {
        Process j = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(process.process().pid()), command).redirectErrorStream(true).start();
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
        process.close();
    }
}
