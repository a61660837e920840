package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.cluster.Cluster;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.Wrk;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code load-sweep} scenario: Blade from moderate load to past saturation, beside G1 alone, on the
 * {@link HttpClusterScenario#WORKLOAD http-cluster workload}. Per arm ({@code g1}, then {@code blade-parallel}) one
 * fresh cluster of {@link ClusterDemo#BACKENDS} backends behind HAProxy, which runs:
 * <ol>
 *   <li><b>closed loop</b>: wrk with {@value #CONNECTIONS} connections, {@link #closedWarmup} then
 *       {@link #closedWindow} measured: the most the cluster serves, and the latencies a fixed set of callers sees
 *       then;</li>
 *   <li><b>open loop</b> at each of {@link #percents} of G1's closed-loop throughput, lowest first, each window after
 *       {@link #saturate} of wrk: the saturating load leaves the three heaps filling in step, the case in which
 *       collections come due together, then {@link #window} is measured from the intended send times.</li>
 * </ol>
 * Stateless; {@link #run} writes {@code table.md} and keeps wrk's output and the children's logs in {@code logs/}.
 */
final class LoadSweepScenario {
    /** The scenario's name on the command line. */
    static final String NAME = "load-sweep";
    /** wrk's connections, as in the measurements that opened the question (16: the cluster saturates). */
    static final int CONNECTIONS = 16;
    /** The arms, by their {@link HttpClusterScenario} names: G1 first, whose throughput sets the rates. */
    static final List<String> ARMS = List.of("g1", "blade-parallel");
    /** wrk, from the {@code PATH} ({@code benchmarks/run.sh} installs it as root when it is missing). */
    static final Path WRK = Path.of("wrk");

    private LoadSweepScenario() {
    }

    /** @return the open-loop rates as percentages of G1's closed-loop throughput: quick 40, 85; full 25 to 110 */
    static List<Integer> percents(SuiteOptions o) {
        return o.quick() ? List.of(40, 85) : List.of(25, 40, 55, 70, 85, 100, 110);
    }

    static Duration closedWarmup(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 3 : 10);
    }

    static Duration closedWindow(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 5 : 30);
    }

    static Duration saturate(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 3 : 10);
    }

    static Duration window(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 5 : 20);
    }

    /** What one arm measured. */
    record ArmSweep(String arm, Wrk.Result closed, Map<Integer, ClusterArm.Result> open) {
    }

    static boolean run(SuiteOptions o, StopOnExit stop, HttpClient http) throws Exception {
        String header = SuiteReport.header(NAME, o, System.getProperty("java.version") + " (default)");
        List<Arm> arms = new ArrayList<>();
        for (Arm a : HttpClusterScenario.arms(ClusterSpec.currentJava(), Optional.empty(), o.rate(), Duration.ZERO,
                new ArrayList<>())) {
            if (ARMS.contains(a.name())) {
                arms.add(a);
            }
        }
        List<ArmSweep> sweeps = new ArrayList<>();
        double saturation = 0;
        for (Arm arm : arms) {
            Path logDir = o.out().resolve("logs").resolve(arm.name());
            Files.createDirectories(logDir);
            ClusterSpec spec = arm.clusterSpec(ClusterDemo.BACKENDS, HttpClusterScenario.WORKLOAD,
                System.getProperty("java.class.path"), o.haproxy(), new ClusterSpec.BladeParts(o.agentJar(),
                    o.coordinatorJar(), ClusterDemo.COORDINATOR_ARGS), logDir);
            try (Cluster cluster = stop.hold(new Cluster())) {
                cluster.start(spec, http);
                URI url = cluster.haproxy().frontend("/work");
                Wrk.run(WRK, url, CONNECTIONS, closedWarmup(o), logDir.resolve("closed-warmup.txt"));
                Wrk.Result closed = Wrk.run(WRK, url, CONNECTIONS, closedWindow(o),
                    logDir.resolve("closed.txt"));
                System.err.printf(Locale.ROOT, "suite: %s: closed loop %.0f req/s, p99 %.1f ms%n", arm.name(),
                    closed.requestsPerSecond(), closed.percentile(99));
                if (saturation == 0) {
                    saturation = closed.requestsPerSecond();
                }
                Map<Integer, ClusterArm.Result> open = new LinkedHashMap<>();
                for (int percent : percents(o)) {
                    double rate = saturation * percent / 100;
                    Wrk.run(WRK, url, CONNECTIONS, saturate(o), logDir.resolve("saturate-" + percent
                        + ".txt"));
                    ClusterArm.Result r = ClusterArm.run(arm.name() + " " + percent + " %", cluster, rate,
                        Duration.ofSeconds(1), window(o), http, o.out().resolve(arm.name() + "-" + percent + ".hlog"),
                        null, null);
                    r.load().save(logDir.resolve(percent + ".load.properties"));
                    open.put(percent, r);
                    System.err.printf(Locale.ROOT, "suite: %s: %d %% (%.0f req/s): p99.9 %.2f ms, %s%n", arm.name(),
                        percent, rate, r.load().okPercentileMicros(99.9) / 1000.0, collections(r));
                }
                sweeps.add(new ArmSweep(arm.name(), closed, open));
            } finally {
                stop.release();
            }
        }
        String md = header + "\n" + LoadSweepTable.markdown(sweeps, saturation, percents(o)) + "\n"
            + SuiteReport.armLines(arms) + footer(o);
        SuiteReport.write(o, md);
        return sweeps.size() == arms.size();
    }

    /**
     * @return "collections N" or, with Blade, "forced F, escaped E, beyond K G, demand D" over the window (D: the slot
     *     demand the coordinator reported at its end, with "infeasible" when it judged the schedule so in the window),
     *     then the pauses of two backends at once ({@link PauseOverlaps#cell})
     */
    static String collections(ClusterArm.Result r) {
        String overlaps = "; " + PauseOverlaps.of(r).cell(r.observer() != null);
        if (r.observer() == null) {
            long pauses = 0;
            for (ClusterArm.NodeWindow n : r.nodes()) {
                pauses += n.end().path("gcPauses").size();
            }
            return "collections " + pauses + overlaps;
        }
        long from = r.windowStart();
        return String.format(Locale.ROOT, "forced %d, escaped %d, beyond K %d, demand %.2f%s", counter(r, "Forced"),
            counter(r, "Escaped"),
            r.observer().dueGrants(from), r.observer().lastSlotDemand(), r.observer().infeasiblePolls(from) > 0
                ? " infeasible" : "") + overlaps;
    }

    /** @return how much Blade's counter {@code name} ({@code Forced}, {@code Escaped}) grew on all backends */
    static long counter(ClusterArm.Result r, String name) {
        long sum = 0;
        for (ClusterArm.NodeWindow n : r.nodes()) {
            sum += n.counterDelta(name);
        }
        return sum;
    }

    /** @return a window's client-visible failures: 503s, other statuses, I/O errors, timeouts, unfinished */
    static long failures(LoadResult load) {
        return load.shed() + load.otherStatus() + load.ioErrors() + load.timeouts() + load.unfinished();
    }

    private static String footer(SuiteOptions o) {
        return String.format(Locale.ROOT, "%n%d backends behind HAProxy (retry-on 503, redispatch). Per arm one fresh"
            + " cluster: closed loop with wrk (%d connections, 2 threads, %d s warm-up, %d s measured), then open-loop"
            + " windows from the intended send time at the listed shares of G1's closed-loop throughput, lowest first,"
            + " each after %d s of the same saturating wrk load (the heaps fill in step) and 1 s at its rate, %d s"
            + " measured. The arms ran one after the other, not interleaved. Raw: `logs/<arm>/` (wrk's output, the"
            + " children's logs, each window's load.properties), `<arm>-<percent>.hlog`.%n", ClusterDemo.BACKENDS,
            CONNECTIONS, closedWarmup(o).toSeconds(), closedWindow(o).toSeconds(), saturate(o).toSeconds(),
            window(o).toSeconds());
    }
}
