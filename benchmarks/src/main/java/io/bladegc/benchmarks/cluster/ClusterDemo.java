package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The README demo: three demo backends behind HAProxy, once per arm, each arm under the same open-loop rate
 * through HAProxy (warm-up, then the measured window), and one table with the arms side by side
 * ({@link ClusterTable}). The load generator runs in this JVM; give it a young generation large enough not to
 * collect during a run (the demo script does).
 *
 * <ul>
 *   <li>{@code g1} ("G1 alone"): {@code -XX:+UseG1GC}, no agent, no filter; the same HAProxy (a 503 would be
 *       retried, but nothing sheds).</li>
 *   <li>{@code blade} ("Blade"): {@code -XX:+UseParallelGC -XX:-UseAdaptiveSizePolicy}, the servlet filter, the
 *       agent in coordinated mode and the coordinator (K = 1) taking a node out of HAProxy's rotation around each
 *       of its collections.</li>
 * </ul>
 *
 * <p>Every backend: {@code -Xms256m -Xmx256m -Xmn64m -XX:MetaspaceSize=64m -XX:ParallelGCThreads=1
 * -XX:ConcGCThreads=1 -XX:+AlwaysPreTouch}, live set 64 MB, 64 KiB of garbage and 8 KiB of live-set churn per request, 16 Jetty
 * threads: sized for a 2-core machine shared by three backends, HAProxy, the coordinator and the load generator.
 *
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) io.bladegc.benchmarks.cluster.ClusterDemo \
 *     --agent-jar agent/target/blade-agent-0.1.0-SNAPSHOT.jar \
 *     --coordinator-jar coordinator/target/blade-coordinator.jar \
 *     [--arms g1,blade] [--rate 600] [--warmup 15s] [--duration 60s] [--haproxy haproxy] [--out DIR]
 * </pre>
 * Writes into {@code --out} (default {@code benchmarks/target/cluster-demo}): per arm a directory with every child's
 * configuration and output (and {@code gc-<pid>.log}), {@code <arm>.load.properties} (the client's result),
 * {@code <arm>.load.txt} (its second-by-second timeline), {@code <arm>.stats.json} (each backend's {@code /stats} at
 * the end); and {@code table.txt}.
 */
public final class ClusterDemo {
    /** Backends per arm. */
    public static final int BACKENDS = 3;
    /**
     * Heap and GC threads of every backend. {@code MetaspaceSize}: the class metadata of Jetty, Jackson and the agent
     * passes the default first threshold (about 21 MB) a while after start, and on Parallel that costs a full
     * collection the JVM starts on its own ("Metadata GC Threshold"), which Blade does not predict; set above the
     * footprint, as production services commonly do, for both arms.
     */
    public static final List<String> HEAP = List.of("-Xms256m", "-Xmx256m", "-Xmn64m", "-XX:MetaspaceSize=64m",
        "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1", "-XX:+AlwaysPreTouch");
    /** DemoServer arguments of every backend: live set, garbage and churn per request, threads. */
    public static final List<String> WORKLOAD = List.of("--live-mb", "64", "--garbage-kb", "64", "--churn-kb", "8",
        "--threads", "16");
    private static final String USAGE = "usage: ClusterDemo --agent-jar JAR --coordinator-jar JAR [--arms g1,blade]"
        + " [--rate 600] [--warmup 15s] [--duration 60s] [--haproxy haproxy] [--out DIR]";

    private ClusterDemo() {
    }

    public static void main(String[] args) throws Exception {
        ClusterDemoOptions o;
        try {
            o = ClusterDemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
        // SIGTERM or Ctrl-C: stop the running arm's children too (try-with-resources does not run then)
        AtomicReference<Cluster> running = new AtomicReference<>();
        Thread stopChildren = new Thread(() -> {
            Cluster c = running.get();
            if (c != null) {
                c.close();
            }
        }, "cluster-demo-stop");
        Runtime.getRuntime().addShutdownHook(stopChildren);
        List<ClusterArm.Result> results = new ArrayList<>();
        for (int i = 0; i < o.arms().size(); i++) {
            String arm = o.arms().get(i);
            String title = title(arm) + (Collections.frequency(o.arms(), arm) > 1 ? " #" + (i + 1) : "");
            String dirName = (i + 1) + "-" + arm;
            Path dir = o.out().resolve(dirName);
            ClusterSpec spec = spec(arm, o, dir);
            System.err.printf(Locale.ROOT, "cluster demo: arm %s: %d backends %s, %.0f req/s through HAProxy,"
                + " warm-up %d s, measured %d s; logs in %s%n", title, BACKENDS, spec.backendJvmFlags(), o.rate(),
                o.warmup().toSeconds(), o.duration().toSeconds(), dir);
            ClusterArm.Result r;
            try (Cluster cluster = new Cluster()) {
                running.set(cluster);
                cluster.start(spec, http);
                r = ClusterArm.run(title, cluster, o.rate(), o.warmup(), o.duration(), http);
            } finally {
                running.set(null);
            }
            save(r, dir);
            results.add(r);
        }
        String table = ClusterTable.format(results) + String.format(Locale.ROOT, "%d backends behind HAProxy"
            + " (retry-on 503, redispatch); open-loop load %.0f req/s from the intended send time, %d s warm-up, %d s"
            + " measured; percentiles over 2xx answers at the client; GC rows from each backend's own GC"
            + " notifications in the measured window; slots from the coordinator's events. Results in %s%n", BACKENDS,
            o.rate(), o.warmup().toSeconds(), o.duration().toSeconds(), o.out());
        Files.writeString(o.out().resolve("table.txt"), table, StandardCharsets.UTF_8);
        System.out.print(table);
    }

    static String title(String arm) {
        return arm.equals("g1") ? "G1 alone" : "Blade";
    }

    static ClusterSpec spec(String arm, ClusterDemoOptions o, Path dir) {
        List<String> flags = new ArrayList<>();
        List<String> demoArgs = new ArrayList<>(WORKLOAD);
        ClusterSpec.BladeJars blade = null;
        if (arm.equals("g1")) {
            flags.add("-XX:+UseG1GC");
            demoArgs.addAll(List.of("--blade", "off"));
        } else {
            // a fixed eden: young collections come at a steady pace, as with the G1 arm's fixed young generation
            flags.addAll(List.of("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy"));
            demoArgs.addAll(List.of("--blade", "on"));
            blade = new ClusterSpec.BladeJars(o.agentJar(), o.coordinatorJar());
        }
        flags.addAll(HEAP);
        flags.add("-Xlog:gc*:file=" + dir.toAbsolutePath().resolve("gc-%p.log"));
        return new ClusterSpec(ClusterSpec.currentJava(), System.getProperty("java.class.path"), o.haproxy(), blade,
            BACKENDS, flags, demoArgs, dir);
    }

    /** Writes {@code <dir>.load.properties}, {@code <dir>.load.txt} and {@code <dir>.stats.json}. */
    private static void save(ClusterArm.Result r, Path dir) throws Exception {
        String prefix = dir.toString();
        r.load().save(Path.of(prefix + ".load.properties"));
        Files.writeString(Path.of(prefix + ".load.txt"), r.load() + r.load().timeline(), StandardCharsets.UTF_8);
        Map<String, Object> stats = new LinkedHashMap<>();
        for (ClusterArm.NodeWindow n : r.nodes()) {
            stats.put(n.node(), n.end());
        }
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(Path.of(prefix + ".stats.json").toFile(), stats);
    }
}
