package io.bladegc.benchmarks.suite.memory;

import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.EpsilonHeap;
import io.bladegc.benchmarks.suite.harness.JavaInstallation;
import io.bladegc.benchmarks.suite.harness.LiveFootprint;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import io.bladegc.benchmarks.suite.harness.SuiteTable;
import io.bladegc.benchmarks.suite.harness.WindowCost;
import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.benchmarks.suite.http.ClusterRateSearch;
import io.bladegc.benchmarks.suite.http.HttpClusterRunner;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The {@code memory-pressure} scenario (paper 001's memory-to-data ratios): as the heap shrinks toward the live set,
 * the highest request rate that keeps the client's p99 under {@link #TARGET_P99_MICROS}, and what the tail, CPU and
 * memory cost at the starting rate, for Blade and for the collectors a user would pick instead ({@link #arms}; the
 * {@code --arms} named). First it measures the live footprint: one DemoServer with a 1 GiB Parallel heap,
 * {@code POST /gc} twice, then the heap in use ({@code /stats} {@code heapUsedBytes}); then one window of Epsilon (no
 * collection) at the starting rate, the floor each arm's p99.9 is held against. Then for each
 * heap ratio (heap = ratio x footprint) and arm it starts one cluster ({@link ClusterDemo#BACKENDS} backends behind
 * HAProxy, as {@link HttpClusterRunner}) and runs a {@link RateSearch} on it: successive windows of open-loop load
 * (a short settle, on a fresh cluster {@link SuiteOptions#warmup()}, then a measured window), the rate rising by
 * {@link #GROWTH} from {@code --rate} until p99 misses the target, then bisected. A backend that does not start or
 * dies (the JVMs run with {@code -XX:+ExitOnOutOfMemoryError}) ends that search and is reported in the table; the
 * scenario goes on.
 * Every window records the backends' CPU time, peak memory and a concurrent collector's stalls
 * ({@link ClusterRateSearch#costs()}). Writes {@code table.md} ({@link MemoryPressureTable}), {@code latency.png}
 * (each search's best window),
 * {@code <arm>-x<ratio>-<rate>.hlog} per window, and {@code logs/}. Stateless.
 */
public final class MemoryPressureScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "memory-pressure";
    /**
     * The latency a passing window's p99 stays under: 10 ms. Well above this machine's floor (an idle wake-up alone
     * reaches about 5 ms at p99.9 on its two shared cores), so that a miss means the collector or the queue, not the
     * scheduler; and well under a stop-the-world pause of this live set (tens to hundreds of ms).
     */
    public static final long TARGET_P99_MICROS = 10_000;
    /** The percentile searched on. */
    public static final double PERCENTILE = 99;
    /** Live set of every backend, MiB: small enough that ratio 8 fits three backends in memory comfortably. */
    static final int LIVE_MB = 96;
    /** DemoServer arguments: {@link Workload#CACHE_CHURN} with a {@value #LIVE_MB} MiB live set. */
    static final List<String> WORKLOAD = withLiveSet(Workload.CACHE_CHURN.args(), LIVE_MB);
    /** Heap over live footprint, largest first. */
    static final List<Double> RATIOS = List.of(8.0, 4.0, 2.0, 1.5, 1.25);
    /** The ratios of a quick run. */
    static final List<Double> QUICK_RATIOS = List.of(4.0, 1.5);
    /** Factor between rates before the first miss. */
    static final double GROWTH = 1.5;
    /** The search's floor and ceiling, requests per second. */
    static final double MIN_RATE = 50;
    static final double MAX_RATE = 20_000;
    /** Bisection ends when the lowest miss is within this factor of the highest pass. */
    static final double RESOLUTION = 1.1;
    /** How far above Epsilon's p99.9 an arm's may be for the cost table to count its heap as enough. */
    static final double EPSILON_FACTOR = 2;
    /**
     * Heap an Epsilon backend needs besides the per-request garbage: the live set as laid out in the heap (1.4 times
     * its payload, as {@code http-cluster}'s) plus Jetty, classes, start-up.
     */
    static final int EPSILON_BASE_MIB = 128 + LIVE_MB * 14 / 10;

    private MemoryPressureScenario() {
    }

    /** @return the rate search of a run: quick 5 windows at most, full 8 */
    static RateSearch search(SuiteOptions o) {
        return new RateSearch(TARGET_P99_MICROS, 0, Math.max(o.rate(), MIN_RATE), GROWTH, MIN_RATE,
            Math.max(o.rate(), MAX_RATE), o.quick() ? 5 : 8, RESOLUTION);
    }

    /** @return load before each measured window: quick 2 s, full 5 s */
    static Duration settle(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 2 : 5);
    }

    /** @return each measured window: quick 4 s, full 15 s */
    static Duration window(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 4 : 15);
    }

    /** @return the heap of a backend at {@code ratio}: ratio x footprint, rounded up to a MiB */
    static long heapMib(double ratio, long footprintBytes) {
        return (long) Math.ceil(ratio * footprintBytes / (1024.0 * 1024));
    }

    /**
     * @param java     the default {@code java} (the one this JVM runs on)
     * @param newer    a JDK 21 or newer, for generational ZGC, Shenandoah and Blade on G1 beside them; empty to skip
     *                 those arms
     * @param heapSize every backend's heap as {@code -Xmx} takes it ({@code 569m}), or a placeholder for the table's
     *                 notes
     * @param notes    receives a line for each arm skipped
     * @return the arms, each exiting on {@code OutOfMemoryError}, with one GC thread of each kind
     *     ({@link BackendFlags#COMMON}): on {@code java} G1 and Parallel (fixed eden) alone and with Blade; on the
     *     newer JDK generational ZGC, Shenandoah (generational from JDK 25, where it is a product mode) and Blade on
     *     G1, so that each concurrent collector has Blade beside it on its own JDK
     */
    static List<Arm> arms(Path java, Optional<JavaInstallation> newer, String heapSize, List<String> notes) {
        List<String> heap = List.of("-Xms" + heapSize, "-Xmx" + heapSize, "-XX:+ExitOnOutOfMemoryError");
        List<Arm> arms = new ArrayList<>(List.of(
            new Arm("g1", java, BackendFlags.of(BackendFlags.G1, heap), BladeMode.NONE, "G1, no Blade"),
            new Arm("parallel", java, BackendFlags.of(BackendFlags.PARALLEL, heap), BladeMode.NONE,
                "Parallel (fixed eden), no Blade"),
            new Arm("blade-g1", java, BackendFlags.of(BackendFlags.G1, heap), BladeMode.COORDINATED,
                "G1, filter + agent coordinated, coordinator draining in HAProxy"),
            new Arm("blade-parallel", java, BackendFlags.of(BackendFlags.PARALLEL, heap), BladeMode.COORDINATED,
                "Parallel (fixed eden), filter + agent coordinated, coordinator draining in HAProxy")));
        if (newer.isPresent()) {
            JavaInstallation jdk = newer.get();
            List<String> shenandoah = jdk.feature() >= 25 ? List.of("-XX:+UseShenandoahGC",
                "-XX:ShenandoahGCMode=generational") : List.of("-XX:+UseShenandoahGC");
            arms.add(new Arm("genzgc", jdk.java(), BackendFlags.of(BackendFlags.generationalZgc(jdk.feature()), heap),
                BladeMode.NONE, "generational ZGC, JDK " + jdk.version() + ", no Blade"));
            arms.add(new Arm("shenandoah", jdk.java(), BackendFlags.of(shenandoah, heap), BladeMode.NONE,
                (jdk.feature() >= 25 ? "generational " : "") + "Shenandoah, JDK " + jdk.version() + ", no Blade"));
            arms.add(new Arm("blade-g1-jdk" + jdk.feature(), jdk.java(), BackendFlags.of(BackendFlags.G1, heap),
                BladeMode.COORDINATED, "G1, JDK " + jdk.version() + ", filter + agent coordinated, coordinator"
                    + " draining in HAProxy"));
        } else {
            notes.add("genzgc, shenandoah and Blade on the newer JDK: skipped, no JDK 21 or newer found");
        }
        return arms;
    }

    /**
     * @param java the default {@code java}
     * @param o    the command line (rate, warm-up)
     * @return Epsilon (no collection), its heap sized for one window at {@code --rate}: the floor the other arms'
     *     p99.9 is held against
     */
    static EpsilonHeap epsilonHeap(SuiteOptions o) {
        return new EpsilonHeap(EPSILON_BASE_MIB, o.rate() / ClusterDemo.BACKENDS, Workload.CACHE_CHURN.kibPerRequest(),
            o.warmup().plus(window(o)));
    }

    /**
     * Runs every (ratio, arm) search and Epsilon's window, and writes the results.
     *
     * @param o    the command line
     * @param stop holds each running process or cluster, for a shutdown during the run
     * @param http a client for the control requests
     * @return true: a cluster that did not start or a backend that ran out of memory is a result (in the table),
     *     not a failure; a footprint that cannot be measured throws
     */
    public static boolean run(SuiteOptions o, StopOnExit stop, HttpClient http) throws Exception {
        Path java = ClusterSpec.currentJava();
        Optional<JavaInstallation> newer = JavaInstallation.find(o.jvmDir(), 21);
        String header = SuiteReport.header(NAME, o.quick(), o.command(), System.getProperty("java.version")
            + " (runs the load and the arms but the newer JDK's)" + newer.map(j -> ", " + j.version() + " ("
            + j.java() + ")").orElse(""));
        List<String> notes = new ArrayList<>();
        List<Arm> named = Arm.select(arms(java, newer, "<heap>", notes), o.arms());
        long footprint = LiveFootprint.measure(java, WORKLOAD, o.out().resolve("logs").resolve("footprint"), stop,
            http);
        System.err.printf(Locale.ROOT, "suite: live footprint %.1f MiB%n", footprint / 1048576.0);
        EpsilonHeap epsilonHeap = epsilonHeap(o);
        Arm epsilonArm = new Arm("epsilon", java, BackendFlags.of(BackendFlags.EPSILON, List.of("-Xms"
            + epsilonHeap.mib() + "m", "-Xmx" + epsilonHeap.mib() + "m")), BladeMode.NONE,
            "Epsilon (no collection): the floor, one window at the starting rate");
        ClusterRateSearch floor = new ClusterRateSearch(o, epsilonArm, "epsilon", WORKLOAD, epsilonSearch(o),
            PERCENTILE, settle(o), window(o), http);
        floor.run(stop);
        Optional<WindowCost> epsilon = floor.costs().stream().findFirst();
        List<MemoryPressureTable.Row> rows = new ArrayList<>();
        Map<String, Histogram> lines = new LinkedHashMap<>();
        List<Double> ratios = o.quick() ? QUICK_RATIOS : RATIOS;
        for (int i = 0; i < ratios.size(); i++) {
            double ratio = ratios.get(i);
            long heapMib = heapMib(ratio, footprint);
            List<String> names = named.stream().map(Arm::name).toList();
            List<Arm> arms = new ArrayList<>(Arm.select(arms(java, newer, heapMib + "m", new ArrayList<>()), names));
            if (i % 2 == 1) {
                Collections.reverse(arms);
            }
            for (Arm arm : arms) {
                String id = arm.name() + "-x" + SuiteTable.number(ratio);
                ClusterRateSearch s = new ClusterRateSearch(o, arm, id, WORKLOAD, search(o), PERCENTILE, settle(o),
                    window(o), http);
                ClusterRateSearch.Outcome outcome = s.run(stop);
                rows.add(new MemoryPressureTable.Row(arm.name(), ratio, heapMib, outcome.search(), outcome.failure(),
                    s.costs().stream().findFirst()));
                s.best().ifPresent(best -> lines.put(id + " @ " + Math.round(best.getKey()) + "/s",
                    best.getValue().okLatency()));
            }
        }
        LatencyPlot.write(o.out().resolve("latency.png"), NAME + ": 2xx latency at the client, each search's"
            + " highest passing window", lines);
        notes.add(epsilonHeap.note());
        SuiteReport.write(o.out(), header + String.format(Locale.ROOT, "- live footprint: %.1f MiB per backend (heap in"
            + " use after two System.gc() in one DemoServer with a 1 GiB Parallel heap, before any load)%n%n",
            footprint / 1048576.0) + MemoryPressureTable.markdown(rows, PERCENTILE, TARGET_P99_MICROS) + '\n'
            + String.format(Locale.ROOT, "Each search's first window, at %.0f/s (after the %d s warm-up on a fresh"
            + " cluster):%n%n", search(o).startRate(), o.warmup().toSeconds())
            + MemoryPressureTable.firstWindows(rows, epsilon) + '\n'
            + MemoryPressureTable.cost(rows, epsilon, EPSILON_FACTOR) + '\n'
            + SuiteReport.armLines(named) + SuiteReport.armLines(List.of(epsilonArm))
            + notes.stream().map(n -> "- " + n + "\n").collect(Collectors.joining()) + footer(o));
        return true;
    }

    /** @return Epsilon's search: one window at the searches' starting rate */
    static RateSearch epsilonSearch(SuiteOptions o) {
        RateSearch s = search(o);
        return new RateSearch(s.targetMicros(), s.maxErrors(), s.startRate(), s.growth(), s.minRate(), s.maxRate(), 1,
            s.resolution());
    }

    /** @return {@code workload} with {@code --live-mb} set to {@code liveMb} */
    static List<String> withLiveSet(List<String> workload, int liveMb) {
        List<String> out = new ArrayList<>(workload);
        int i = out.indexOf("--live-mb");
        if (i < 0) {
            throw new IllegalArgumentException("the workload has no --live-mb: " + workload);
        }
        out.set(i + 1, Integer.toString(liveMb));
        return List.copyOf(out);
    }

    private static String footer(SuiteOptions o) {
        RateSearch s = search(o);
        return String.format(Locale.ROOT, "%n%d backends behind HAProxy (retry-on 503, redispatch), `%s`; heap ="
            + " ratio x live footprint (`-Xms` = `-Xmx`). Per ratio and arm one cluster (arms alternate which goes"
            + " first) and a rate search on it: windows of open-loop load (%d s settle, the first window %d s, then"
            + " %d s measured), from %.0f"
            + " req/s up by x%.1f until p%s misses %d ms or the client sees any error (503 or other status, I/O error,"
            + " timeout), then bisected until within %.0f %%; at most %d windows; floor %.0f, ceiling %.0f req/s."
            + " Successive windows run on the same backends (their heaps carry over). A backend that did not start or"
            + " exited (OutOfMemoryError: `-XX:+ExitOnOutOfMemoryError`) ends its search; the note says so."
            + " p%s: 2xx at the client, from the intended send time. Every arm, the concurrent collectors included,"
            + " has the same GC threads: `%s`. CPU: user + system of the"
            + " three backends in the measured window (/proc), GC threads included, per 1000 requests sent. Peak RSS:"
            + " the largest backend's VmHWM since it started (`-XX:+AlwaysPreTouch`: the whole heap is resident)."
            + " Concurrent-collector stalls: ZGC's allocation and relocation stalls, Shenandoah's degenerated and full"
            + " pauses, from the backends' GC logs in the measured window; the cost table counts an arm's heap as"
            + " enough where that window had no client error and p99.9 <= %s x Epsilon's. Raw:"
            + " `<arm>-x<ratio>-<rate>.hlog` (interval logs), `logs/<arm>-x<ratio>/` (children's output, GC logs,"
            + " each window's `<rate>.load.properties`),"
            + " `logs/footprint/`.%n", ClusterDemo.BACKENDS, String.join(" ", WORKLOAD), settle(o).toSeconds(),
            o.warmup().toSeconds(), window(o).toSeconds(), s.startRate(), GROWTH,
            SuiteTable.number(PERCENTILE),
            TARGET_P99_MICROS / 1000, (RESOLUTION - 1) * 100, s.maxProbes(), MIN_RATE, s.maxRate(),
            SuiteTable.number(PERCENTILE), BackendFlags.COMMON.stream().filter(f -> f.contains("GCThreads"))
                .collect(Collectors.joining(" ")), SuiteTable.number(EPSILON_FACTOR));
    }
}
