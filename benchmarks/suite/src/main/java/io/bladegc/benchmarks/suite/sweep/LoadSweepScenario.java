package io.bladegc.benchmarks.suite.sweep;

import io.bladegc.benchmarks.cluster.Cluster;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import io.bladegc.benchmarks.load.Wrk;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.CpuQuota;
import io.bladegc.benchmarks.suite.harness.PauseOverlaps;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.benchmarks.suite.http.HttpClusterScenario;
import java.io.FileNotFoundException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * The {@code load-sweep} scenario: Blade from moderate load to past saturation, beside G1 alone, on the
 * {@link Workload workload} ({@code --workload}). Every arm ({@code --arms}, default {@link #DEFAULT_ARMS})
 * gets one cluster of {@link ClusterDemo#BACKENDS} backends behind HAProxy, all started first (each then warmed up
 * by {@link #warmup} of saturating wrk load) and kept up, and the windows are interleaved across them: in each of
 * {@link #rounds} rounds, the arms in an order rotated by one per round, each arm runs
 * <ol>
 *   <li>a <b>closed-loop</b> window: wrk with {@value #CONNECTIONS} connections for {@link #burst}, then
 *       {@link #closedWindow} measured (the most the cluster serves, and what a fixed set of callers sees);</li>
 *   <li>per rate, lowest first, an <b>open-loop</b> window: {@link #burst} of the same saturating wrk load (the heaps
 *       fill in step: collections come due together), 1 s at the rate, then {@link #window} measured from the
 *       intended send times, whose first {@value #RECOVERY_SECONDS} s count as the recovery from the burst and the
 *       rest as the steady state.</li>
 * </ol>
 * Then, up to {@link #maxRounds} rounds in all, more rounds of open-loop windows at the rates where a Blade arm's
 * goal is not yet decided ({@link LoadSweepTable#undecided}): its ratio's interval still spans the bound.
 * The rates are fixed, absolute: shares ({@link #percents}) of G1's closed-loop saturation as calibrated once
 * ({@code --rate}; {@code benchmarks/run.sh} passes {@code G1_SATURATION}), so every sweep, and every arm in it, runs
 * the same rates; the table also shows what G1's closed loop measured in this run. The client keeps up to
 * {@link ClusterArm#IN_FLIGHT} requests in flight over all backends (why not per backend: there). Stateless;
 * {@link #run} writes {@code table.md} ({@link LoadSweepTable}) and keeps wrk's output, the windows' interval logs and
 * the children's logs in {@code logs/}.
 */
public final class LoadSweepScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "load-sweep";
    /** wrk's connections, as in the measurements that opened the question (16: the cluster saturates). */
    static final int CONNECTIONS = 16;
    /** The arms without {@code --arms}, by their {@link HttpClusterScenario} names. */
    static final List<String> DEFAULT_ARMS = List.of("g1", "blade-g1", "blade-parallel");
    /** The arms the sweep can run. */
    static final List<String> SWEEP_ARMS = List.of("g1", "blade-g1", "blade-parallel", "parallel");
    /** The first seconds of an open-loop window that count as the recovery from the burst before it. */
    static final int RECOVERY_SECONDS = 4;
    /** wrk, from the {@code PATH} ({@code benchmarks/run.sh} installs it as root when it is missing). */
    static final Path WRK = Path.of("wrk");

    private LoadSweepScenario() {
    }

    /** @return the open-loop rates as percentages of G1's saturation: quick 40, 85; full 25 to 110 */
    static List<Integer> percents(SuiteOptions o) {
        return o.quick() ? List.of(40, 85) : List.of(25, 40, 55, 70, 85, 100, 110);
    }

    /** @return rounds at every rate, hence the fewest windows per rate and arm: quick 1, full 8 */
    static int rounds(SuiteOptions o) {
        return o.quick() ? 1 : 8;
    }

    /** @return the most rounds a rate gets, where its goals are not yet decided: quick 1, full 16 */
    static int maxRounds(SuiteOptions o) {
        return o.quick() ? 1 : 16;
    }

    /** @return wrk's saturating load on each cluster once it started, before the rounds (the JIT warms up) */
    static Duration warmup(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 5 : 20);
    }

    static Duration burst(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 3 : 5);
    }

    static Duration closedWindow(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 5 : 10);
    }

    static Duration window(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 6 : 12);
    }

    /**
     * One measured open-loop window.
     *
     * @param arm      the arm
     * @param percent  the rate, as a share of the calibrated saturation
     * @param round    the round, from 1
     * @param result   what the window measured
     * @param recovery the 2xx latencies of its first {@value #RECOVERY_SECONDS} s
     * @param steady   those of the rest
     */
    record OpenWindow(String arm, int percent, int round, ClusterArm.Result result, Histogram recovery,
                      Histogram steady) {
        /** @return the whole window's 2xx latencies */
        Histogram all() {
            return result.load().okLatency();
        }
    }

    /** One measured closed-loop window. */
    record ClosedWindow(String arm, int round, Wrk.Result result) {
    }

    /**
     * Starts every arm's cluster, runs the rounds of windows on them and writes the results.
     *
     * @param o    the command line
     * @param stop holds the running clusters, for a shutdown during the run
     * @param http a client for the control requests
     * @return true (a cluster that does not start or a window that fails throws)
     */
    public static boolean run(SuiteOptions o, StopOnExit stop, HttpClient http) throws Exception {
        String header = SuiteReport.header(NAME, o.quick(), o.command(),
            System.getProperty("java.version") + " (default)");
        List<String> names = o.arms().isEmpty() ? DEFAULT_ARMS : o.arms();
        if (!names.contains("g1")) {
            throw new IllegalArgumentException("load-sweep compares every arm with g1: --arms must name it");
        }
        List<Arm> arms = Arm.select(HttpClusterScenario.arms(ClusterSpec.currentJava(), Optional.empty(),
            o.heap(), o.gcThreads(), o.workload(), o.rate(), Duration.ZERO, new ArrayList<>()).stream()
            .filter(a -> SWEEP_ARMS.contains(a.name())).toList(), names);
        List<Cluster> clusters = new ArrayList<>();
        List<CpuQuota> quotas = new ArrayList<>();
        List<ClosedWindow> closed = new ArrayList<>();
        List<OpenWindow> open = new ArrayList<>();
        AutoCloseable stopAll = () -> {
            clusters.forEach(Cluster::close);
            for (CpuQuota q : quotas) {
                q.close(); // once the backends ended
            }
        };
        stop.hold(stopAll);
        try {
            for (Arm arm : arms) {
                Path logDir = Files.createDirectories(o.out().resolve("logs").resolve(arm.name()));
                ClusterSpec spec = arm.clusterSpec(ClusterDemo.BACKENDS, o.workload().args(),
                    System.getProperty("java.class.path"), o.haproxy(), new ClusterSpec.BladeParts(o.agentJar(),
                        o.coordinatorJar(), ClusterDemo.COORDINATOR_ARGS), logDir);
                Cluster cluster = new Cluster();
                clusters.add(cluster);
                cluster.start(spec, http);
                if (o.backendCpus() > 0) {
                    for (int b = 0; b < cluster.backends().size(); b++) {
                        quotas.add(CpuQuota.apply(arm.name() + "-" + cluster.nodes().get(b),
                            cluster.backends().get(b).process().pid(), o.backendCpus()));
                    }
                }
                Wrk.run(WRK, cluster.haproxy().frontend("/work"), CONNECTIONS, warmup(o), logDir.resolve("warmup.txt"));
            }
            for (int round = 1; round <= maxRounds(o); round++) {
                boolean extra = round > rounds(o);
                List<Integer> rates = extra ? LoadSweepTable.undecided(names, percents(o),
                    (arm, percent) -> LoadSweepTable.windows(open, arm, percent, OpenWindow::all)) : percents(o);
                if (rates.isEmpty()) {
                    break;
                }
                List<Integer> order = rotated(arms.size(), round - 1);
                if (extra) {
                    System.err.printf(Locale.ROOT, "suite: round %d, at the rates not yet decided: %s%n", round,
                        rates);
                } else {
                    for (int i : order) {
                        closed.add(closedWindow(o, arms.get(i).name(), round, clusters.get(i)));
                    }
                }
                for (int percent : rates) {
                    for (int i : order) {
                        open.add(openWindow(o, arms.get(i).name(), percent, round, clusters.get(i), http));
                    }
                }
            }
        } finally {
            stopAll.close();
            stop.release();
        }
        String md = header + "\n" + LoadSweepTable.markdown(arms.stream().map(Arm::name).toList(), o.rate(),
            percents(o), closed, open) + "\n" + SuiteReport.armLines(arms) + footer(o);
        SuiteReport.write(o.out(), md);
        return true;
    }

    /** @return {@code 0..n-1} rotated left by {@code by}: each round starts with the next arm */
    static List<Integer> rotated(int n, int by) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add((i + by) % n);
        }
        return order;
    }

    private static ClosedWindow closedWindow(SuiteOptions o, String arm, int round, Cluster cluster)
            throws Exception {
        Path logDir = o.out().resolve("logs").resolve(arm);
        URI url = cluster.haproxy().frontend("/work");
        Wrk.run(WRK, url, CONNECTIONS, burst(o), logDir.resolve("closed-" + round + "-burst.txt"));
        Wrk.Result r = Wrk.run(WRK, url, CONNECTIONS, closedWindow(o), logDir.resolve("closed-" + round + ".txt"));
        System.err.printf(Locale.ROOT, "suite: round %d, %s: closed loop %.0f req/s, p99 %.1f ms%n", round, arm,
            r.requestsPerSecond(), r.percentile(99));
        return new ClosedWindow(arm, round, r);
    }

    private static OpenWindow openWindow(SuiteOptions o, String arm, int percent, int round, Cluster cluster,
                                         HttpClient http) throws Exception {
        Path logDir = o.out().resolve("logs").resolve(arm);
        double rate = o.rate() * percent / 100;
        String id = percent + "-" + round;
        Wrk.run(WRK, cluster.haproxy().frontend("/work"), CONNECTIONS, burst(o), logDir.resolve("burst-" + id
            + ".txt"));
        Path hlog = logDir.resolve(id + ".hlog");
        ClusterArm.Result r = ClusterArm.run(arm + " " + percent + " %", cluster, rate, Duration.ofSeconds(1),
            window(o), http, hlog, null, null);
        r.load().save(logDir.resolve(id + ".load.properties"));
        Histogram[] parts = split(hlog);
        System.err.printf(Locale.ROOT, "suite: round %d, %s, %d %% (%.0f req/s): p99.9 %.2f ms, %s%n", round, arm,
            percent, rate, r.load().okPercentileMicros(99.9) / 1000.0, collections(r));
        return new OpenWindow(arm, percent, round, r, parts[0], parts[1]);
    }

    /**
     * @return the interval log's first {@value #RECOVERY_SECONDS} intervals (seconds) pooled, and the rest pooled
     */
    static Histogram[] split(Path hlog) throws FileNotFoundException {
        Histogram recovery = new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
        Histogram steady = new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
        HistogramLogReader reader = new HistogramLogReader(hlog.toFile());
        try {
            int i = 0;
            while (reader.hasNext()) {
                Histogram h = (Histogram) reader.nextIntervalHistogram();
                if (h != null) {
                    (i++ < RECOVERY_SECONDS ? recovery : steady).add(h);
                }
            }
        } finally {
            reader.close();
        }
        return new Histogram[] {recovery, steady};
    }

    /**
     * @return "collections N" or, with Blade, "forced F, left L, escaped E, unscheduled U, invited I, beyond K G,
     *     demand D" (L: young collections the nodes left to the JVM because a grant could not come before eden fills)
     *     over the window (D: the slot demand the coordinator reported at its end, with "infeasible" when it judged
     *     the schedule so in the window and "observing" when it had stepped down), then the pauses of two backends at
     *     once ({@link PauseOverlaps#cell})
     */
    static String collections(ClusterArm.Result r) {
        String overlaps = "; " + PauseOverlaps.of(r).cell(r.observer() != null);
        if (r.observer() == null) {
            return "collections " + PauseOverlaps.of(r).pauses() + overlaps;
        }
        long from = r.windowStart();
        return String.format(Locale.ROOT, "forced %d, left %d, escaped %d, unscheduled %d, invited %d, beyond K %d,"
            + " demand %.2f%s%s", counter(r, "node", "Forced"), counter(r, "node", "LeftToJvm"),
            counter(r, "node", "Escaped"),
            counter(r, "coordination", "Unscheduled"), counter(r, "coordination", "Invitations"),
            r.observer().dueGrants(from),
            r.observer().lastSlotDemand(), r.observer().infeasiblePolls(from) > 0 ? " infeasible" : "",
            r.observer().observingPolls(from) > 0 ? " observing" : "") + overlaps;
    }

    /**
     * @return how much the backends' counter {@code name} of MBean section {@code mbean} ({@code node}: {@code Forced},
     *     {@code LeftToJvm}, {@code Escaped}; {@code coordination}: {@code Unscheduled}, {@code Invitations}) grew in the window, all backends together
     */
    static long counter(ClusterArm.Result r, String mbean, String name) {
        long sum = 0;
        for (ClusterArm.NodeWindow n : r.nodes()) {
            sum += n.counterDelta(mbean, name);
        }
        return sum;
    }

    /** @return a window's client-visible failures: 503s, other statuses, I/O errors, timeouts, unfinished */
    static long failures(LoadResult load) {
        return load.shed() + load.otherStatus() + load.ioErrors() + load.timeouts() + load.unfinished();
    }

    /** @return the table's closing paragraph: the clusters, the rounds and windows, where the raw files are */
    static String footer(SuiteOptions o) {
        return String.format(Locale.ROOT, "%n%d backends behind HAProxy (retry-on 503, redispatch), each running"
            + " the %s workload (`%s`), up to %d requests in flight over all of them. One cluster per arm, all"
            + " started first, each warmed up by %d s of saturating wrk load; %d round(s), the arms' order rotated by"
            + " one each round%s. Per round and arm: a closed-loop window (wrk, %d connections,"
            + " 2 threads, %d s burst, %d s measured), then per rate, lowest first, an open-loop window (%d s of the"
            + " same saturating wrk load, 1 s at the rate, %d s measured from the intended send times; its first %d s"
            + " are the recovery, the rest the steady state). Raw: `logs/<arm>/` (wrk's output, each window's"
            + " `<percent>-<round>.hlog` and `.load.properties`, the children's logs, their GC logs with wall-clock"
            + " times).%s%n", ClusterDemo.BACKENDS,
            o.workload().label(), String.join(" ", o.workload().args()), ClusterArm.IN_FLIGHT,
            warmup(o).toSeconds(), rounds(o), maxRounds(o) == rounds(o) ? "" : ", then up to " + maxRounds(o)
                + " in all at the rates where a Blade arm's goal was not yet decided (open loop only; the windows"
                + " column counts them)", CONNECTIONS, burst(o).toSeconds(),
            closedWindow(o).toSeconds(), burst(o).toSeconds(), window(o).toSeconds(), RECOVERY_SECONDS,
            o.backendCpus() == 0 ? "" : " Each backend held to " + CpuQuota.label(o.backendCpus()) + " (a CPU control"
                + " group of its own, a CFS quota per 10 ms, set once it started), as a replica with a CPU limit.");
    }
}
