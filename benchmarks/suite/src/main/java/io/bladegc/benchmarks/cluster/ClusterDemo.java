package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.benchmarks.demo.DemoTable;
import io.bladegc.benchmarks.load.LoadProgress;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import io.bladegc.benchmarks.report.ArmComparison;
import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.benchmarks.report.TimelinePlot;
import io.bladegc.commandline.ToolCommandLine;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The README demo: three demo backends behind HAProxy, once per arm, each arm under the same open-loop rate through
 * HAProxy (warm-up, then the measured window), one table with the arms side by side ({@link ClusterTable}), Blade's
 * ratios to the other arms and one sentence saying what the run showed ({@link ArmComparison}), and two pictures:
 * the latency percentiles of every arm ({@link LatencyPlot}) and, per arm, latency over time with each backend's GC
 * pauses and the coordinator's grants ({@link TimelinePlot}). While an arm runs, a progress line every
 * {@link OpenLoopLoad#PROGRESS_PERIOD}. The load generator runs in this JVM; give it a young generation large enough
 * not to collect during a run (the demo script does).
 *
 * <ul>
 *   <li>{@code g1} ("G1 alone"): {@code -XX:+UseG1GC} with its defaults, no agent, no filter; the same HAProxy (a
 *       503 would be retried, but nothing sheds).</li>
 *   <li>{@code parallel} ("Parallel alone"): the stop-the-world collector Blade schedules, without Blade: what
 *       Blade hides.</li>
 *   <li>{@code blade} ("Blade"): Parallel as above, the servlet filter, the agent in coordinated mode and the
 *       coordinator (K = 1, {@link #COORDINATOR_ARGS}) taking a node out of HAProxy's rotation around each of its
 *       collections.</li>
 * </ul>
 *
 * <p>Every backend: {@link #HEAP} and {@link #WORKLOAD}, the benchmark suite's http-cluster workload (a live set of
 * small objects, what a collector's marking and compaction pay for): sized so that collections pause for real on a
 * 2-core machine shared by three backends, HAProxy, the coordinator and the load generator, and so that every node
 * collects about every 4 s at the default rate.
 *
 * <pre>
 * java -cp benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt) io.bladegc.benchmarks.cluster.ClusterDemo \
 *     --agent-jar agent/target/blade-agent-0.1.0-SNAPSHOT.jar \
 *     --coordinator-jar coordinator/target/blade-coordinator.jar \
 *     [--arms g1,parallel,blade] [--rate 600] [--warmup 15s] [--duration 45s] [--haproxy haproxy] [--out DIR]
 * </pre>
 * Writes into {@code --out} (default {@code benchmarks/target/cluster-demo}): per arm a directory with every child's
 * configuration and output (and {@code gc-<pid>.log}), {@code <arm>.load.properties} (the client's result),
 * {@code <arm>.load.txt} (its second-by-second timeline), {@code <arm>.stats.json} (each backend's {@code /stats} at
 * the end); {@code table.txt}, {@code latency.png} and {@code timeline.png}.
 */
public final class ClusterDemo {
    /** Backends per arm. */
    public static final int BACKENDS = 3;
    /**
     * The coordinator's slot options in the demo and the benchmark suite: K = 1, and a second slot for a node whose JVM
     * is about to collect while another collects (with three backends and min-healthy 1, one always serves). With
     * K = 1 alone, a backend's 20-50 ms young collection that came due during another's 400-700 ms full one ran in
     * rotation: in two Blade arms of this demo (2026-11-26) 9 of 139 collections escaped, p99.9 5.7 and 20 ms; with
     * {@code --k-due 2} none of 107 escaped, p99.9 5.3 and 6.8 ms.
     */
    public static final List<String> COORDINATOR_ARGS = List.of("--k-due", "2");
    /**
     * Heap and GC threads of every backend. {@code MetaspaceSize}: the class metadata of Jetty, Jackson and the agent
     * passes the default first threshold (about 21 MB) a while after start, and on Parallel that costs a full
     * collection the JVM starts on its own ("Metadata GC Threshold"), which Blade does not predict; set above the
     * footprint, as production services commonly do, for every arm.
     */
    public static final List<String> HEAP = List.of("-Xms1g", "-Xmx1g", "-XX:MetaspaceSize=64m",
        "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1", "-XX:+AlwaysPreTouch");
    /**
     * Parallel's arms, with and without Blade: a fixed young generation (no adaptive resizing), small enough that
     * every node collects about every 4 s at the default rate. G1 sizes its own from its pause-time goal.
     */
    public static final List<String> PARALLEL = List.of("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy",
        "-Xmn96m");
    /**
     * DemoServer arguments of every backend, the suite's http-cluster workload: 384 MiB live set in 64-byte arrays,
     * 32 KiB of garbage and 64 KiB of the live set replaced per request, 16 threads.
     */
    public static final List<String> WORKLOAD = List.of("--live-mb", "384", "--object-bytes", "64",
        "--garbage-kb", "32", "--churn-kb", "64", "--threads", "16");
    /** A pause's closing line in a {@code -Xlog:gc} log: {@code GC(12) Pause Young (Allocation Failure) ... 4.2ms}. */
    private static final Pattern PAUSE_LINE = Pattern.compile("GC\\(\\d+\\) Pause .*\\d+\\.\\d+ms$");

    private ClusterDemo() {
    }

    public static void main(String[] args) throws Exception {
        ClusterDemoOptions o = ToolCommandLine.parseOrExit(new ClusterDemoOptions.Flags(), args);
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
            System.err.printf(Locale.ROOT, "cluster demo: arm %d of %d, %s: %d backends %s, %.0f req/s through"
                + " HAProxy, warm-up %d s, measured %d s; logs in %s%n", i + 1, o.arms().size(), title, BACKENDS,
                spec.backendJvmFlags(), o.rate(), o.warmup().toSeconds(), o.duration().toSeconds(), dir);
            ClusterArm.Result r;
            try (Cluster cluster = new Cluster()) {
                running.set(cluster);
                cluster.start(spec, http);
                r = ClusterArm.run(title, cluster, o.rate(), o.warmup(), o.duration(), http, null, null,
                    p -> System.err.println(progress(title, p, cluster, dir)));
            } finally {
                running.set(null);
            }
            save(r, dir);
            results.add(r);
        }
        ArmComparison comparison = ArmComparison.of(results.stream().map(ClusterDemo::figures).toList(), "a grant");
        Path latency = o.out().resolve("latency.png");
        Path timeline = o.out().resolve("timeline.png");
        Map<String, Histogram> histograms = new LinkedHashMap<>();
        List<TimelinePlot.Panel> panels = new ArrayList<>();
        for (ClusterArm.Result r : results) {
            histograms.put(r.title(), r.load().okLatency());
            panels.add(panel(r));
        }
        LatencyPlot.write(latency, String.format(Locale.ROOT, "Cluster demo: %d backends behind HAProxy, %.0f req/s",
            BACKENDS, o.rate()), histograms);
        TimelinePlot.write(timeline, panels);
        String table = ClusterTable.format(results) + String.format(Locale.ROOT, "%d backends behind HAProxy"
            + " (retry-on 503, redispatch); open-loop load %.0f req/s from the intended send time, %d s warm-up, %d s"
            + " measured; percentiles over 2xx answers at the client; GC rows from each backend's own GC"
            + " notifications in the measured window; slots from the coordinator's events. Results in %s%n%n%s%n%s%n",
            BACKENDS, o.rate(), o.warmup().toSeconds(), o.duration().toSeconds(), o.out(), comparison.ratios(),
            comparison.sentence());
        Files.writeString(o.out().resolve("table.txt"), table, StandardCharsets.UTF_8);
        System.out.print(table);
        System.out.printf("Pictures: %s (latency percentiles), %s (latency over time, GC pauses, grants)%n", latency,
            timeline);
    }

    static String title(String arm) {
        return switch (arm) {
            case "g1" -> "G1 alone";
            case "parallel" -> "Parallel alone";
            default -> "Blade";
        };
    }

    static ClusterSpec spec(String arm, ClusterDemoOptions o, Path dir) {
        List<String> flags = new ArrayList<>();
        List<String> demoArgs = new ArrayList<>(WORKLOAD);
        ClusterSpec.BladeParts blade = null;
        if (arm.equals("g1")) {
            flags.add("-XX:+UseG1GC");
            demoArgs.addAll(List.of("--blade", "off"));
        } else if (arm.equals("parallel")) {
            flags.addAll(PARALLEL);
            demoArgs.addAll(List.of("--blade", "off"));
        } else {
            flags.addAll(PARALLEL);
            demoArgs.addAll(List.of("--blade", "on"));
            blade = new ClusterSpec.BladeParts(o.agentJar(), o.coordinatorJar(), COORDINATOR_ARGS);
        }
        flags.addAll(HEAP);
        flags.add("-Xlog:gc*:file=" + dir.toAbsolutePath().resolve("gc-%p.log"));
        return new ClusterSpec(ClusterSpec.currentJava(), System.getProperty("java.class.path"), o.haproxy(), blade,
            BACKENDS, flags, demoArgs, dir);
    }

    /** @return one progress line: the arm, time, requests sent, p99 so far, each backend's GC pauses since start */
    private static String progress(String title, LoadProgress p, Cluster cluster, Path dir) {
        List<String> pauses = new ArrayList<>();
        for (int i = 0; i < cluster.backends().size(); i++) {
            long pid = cluster.backends().get(i).process().pid();
            pauses.add(cluster.nodes().get(i) + " " + pauses(dir.resolve("gc-" + pid + ".log")));
        }
        return String.format(Locale.ROOT, "cluster demo: %s %3d/%d s (%s): %,d requests sent, p99 %s, GC pauses"
            + " since start %s", title, TimeUnit.NANOSECONDS.toSeconds(p.elapsedNanos()),
            TimeUnit.NANOSECONDS.toSeconds(p.totalNanos()), p.measuring() ? "measuring" : "warm-up", p.sent(),
            p.okP99Micros() < 0 ? "-" : String.format(Locale.ROOT, "%.1f ms", p.okP99Micros() / 1000.0),
            String.join(", ", pauses));
    }

    /** @return the pauses a backend's GC log holds so far, or "?" when it cannot be read */
    private static String pauses(Path gcLog) {
        try (Stream<String> lines = Files.lines(gcLog)) {
            return Long.toString(lines.filter(l -> PAUSE_LINE.matcher(l).find()).count());
        } catch (IOException | UncheckedIOException e) {
            return "?";
        }
    }

    private static ArmComparison.Arm figures(ClusterArm.Result r) {
        long forced = 0;
        long escaped = 0;
        for (ClusterArm.NodeWindow n : r.nodes()) {
            forced += n.counterDelta("Forced");
            escaped += n.counterDelta("Escaped");
        }
        LoadResult l = r.load();
        return new ArmComparison.Arm(r.title(), l.okPercentileMicros(99.9), l.okLatency().getMaxValue(),
            l.ioErrors() + l.timeouts() + l.otherStatus() + l.unfinished(), l.shed(), r.observer() != null, forced,
            escaped);
    }

    private static TimelinePlot.Panel panel(ClusterArm.Result r) {
        Map<String, List<double[]>> pauses = new LinkedHashMap<>();
        for (ClusterArm.NodeWindow n : r.nodes()) {
            List<double[]> ps = new ArrayList<>();
            for (JsonNode e : n.end().path("gcPauses")) {
                if (DemoTable.isPause(e)) {
                    long startMs = e.path("wallEndMs").asLong() - e.path("durationMs").asLong();
                    ps.add(new double[] {(startMs - r.windowStart()) / 1000.0, e.path("durationMs").asDouble()});
                }
            }
            pauses.put(n.node(), ps);
        }
        List<double[]> grants = new ArrayList<>();
        if (r.observer() != null) {
            for (ClusterObserver.Grant g : r.observer().grants()) {
                if (g.end() >= r.windowStart()) {
                    grants.add(new double[] {Math.max(0, g.start() - r.windowStart()) / 1000.0,
                        (g.end() - r.windowStart()) / 1000.0});
                }
            }
        }
        return new TimelinePlot.Panel(r.title(), r.load().timelineMaxMicros(), pauses, grants);
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
