package io.bladegc.benchmarks.suite.single;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.InterleavedSchedule;
import io.bladegc.benchmarks.suite.harness.ProcessUsage;
import io.bladegc.benchmarks.suite.harness.RepResult;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import io.bladegc.benchmarks.suite.harness.SuiteTable;
import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.benchmarks.suite.http.HttpClusterScenario;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The {@code single-node} scenario, the GCI paper's experiment: one DemoServer, no balancer, open-loop load straight
 * to it, with Blade's filter (and the agent in single-node mode) off and on, on Parallel (fixed eden) and on G1.
 * Backends as in {@link HttpClusterScenario}: its {@link HttpClusterScenario#HEAP heap} and
 * {@link Workload#CACHE_CHURN workload}, {@link BackendFlags#COMMON}, a GC log per JVM. A fresh server per arm
 * and repetition, repetitions interleaved ({@link InterleavedSchedule}); writes {@code table.md} ({@link SuiteTable}
 * without the balancer's row), {@code latency.png}, {@code <arm>-rep<N>.hlog} and {@code logs/<arm>-rep<N>/} (the
 * server's output, GC log, {@code load.properties}). Nobody retries a shed request here, so the 503s are what the
 * client sees. Stateless.
 */
public final class SingleNodeScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "single-node";
    /** How long the measured window's start snapshot (CPU, {@code /stats}, reset) may take. */
    private static final long START_SNAPSHOT_TIMEOUT_S = 60;

    private SingleNodeScenario() {
    }

    /**
     * @param java the {@code java} the servers run on
     * @return the arms, in the first repetition's order: {@code parallel}, {@code gci-parallel}, {@code g1},
     *     {@code gci-g1}
     */
    public static List<Arm> arms(Path java) {
        List<String> parallel = BackendFlags.of(BackendFlags.PARALLEL, HttpClusterScenario.HEAP);
        List<String> g1 = BackendFlags.of(BackendFlags.G1, HttpClusterScenario.HEAP);
        return List.of(
            new Arm("parallel", java, parallel, BladeMode.NONE, "Parallel (fixed eden), filter off, no agent"),
            new Arm("gci-parallel", java, parallel, BladeMode.GCI,
                "Parallel (fixed eden), filter on + agent in single-node mode"),
            new Arm("g1", java, g1, BladeMode.NONE, "G1, filter off, no agent"),
            new Arm("gci-g1", java, g1, BladeMode.GCI, "G1, filter on + agent in single-node mode"));
    }

    /**
     * Runs every arm and repetition and writes the results.
     *
     * @param o    the command line
     * @param stop holds each running server, for a shutdown during the run
     * @param http a client for the control requests
     * @return whether every repetition of every arm completed
     */
    public static boolean run(SuiteOptions o, StopOnExit stop, HttpClient http) throws Exception {
        String header = SuiteReport.header(NAME, o.quick(), o.command(), System.getProperty("java.version")
            + " (runs the load and every arm)");
        List<Arm> arms = arms(ClusterSpec.currentJava());
        List<RepResult> results = new ArrayList<>();
        Map<String, Integer> failures = new HashMap<>();
        for (InterleavedSchedule.Slot slot : InterleavedSchedule.of(arms, o.repetitions())) {
            Arm arm = slot.arm();
            String id = arm.name() + "-rep" + slot.rep();
            Path logDir = o.out().resolve("logs").resolve(id);
            List<String> flags = arm.serverFlags(o.agentJar(), logDir);
            List<String> args = new ArrayList<>(List.of("--port", "0"));
            args.addAll(Workload.CACHE_CHURN.args());
            args.addAll(List.of("--blade", arm.blade() == BladeMode.NONE ? "off" : "on"));
            System.err.printf(Locale.ROOT, "suite: %s: %s; %.0f req/s, warm-up %d s, measured %d s%n", id, flags,
                o.rate(), o.warmup().toSeconds(), o.measure().toSeconds());
            try (DemoServerProcess server = stop.hold(DemoServerProcess.start(id, arm.java(),
                    System.getProperty("java.class.path"), flags, args, logDir.resolve("server.out"),
                    logDir.resolve("server.log")))) {
                results.add(measure(slot, server, o, http));
            } catch (Exception e) {
                System.err.println("suite: " + id + " failed: " + e + " (logs in " + logDir + ")");
                failures.merge(arm.name(), 1, Integer::sum);
            } finally {
                stop.release();
            }
        }
        List<String> names = arms.stream().map(Arm::name).toList();
        LatencyPlot.write(o.out().resolve("latency.png"), NAME + ": 2xx latency at the client, "
            + o.repetitions() + " repetition(s) merged", SuiteTable.mergedByArm(names, results));
        SuiteReport.write(o.out(), header + '\n' + SuiteTable.markdown(names, results, failures, false) + '\n'
            + SuiteReport.armLines(arms) + footer(o));
        return failures.isEmpty();
    }

    /** Runs the load on one started server, reading its CPU time and Blade's counters around the measured window. */
    private static RepResult measure(InterleavedSchedule.Slot slot, DemoServerProcess server, SuiteOptions o,
                                     HttpClient http) throws Exception {
        String id = slot.arm().name() + "-rep" + slot.rep();
        long pid = server.process().pid();
        ProcessUsage[] before = new ProcessUsage[1];
        JsonNode[] start = new JsonNode[1];
        CountDownLatch taken = new CountDownLatch(1);
        server.stats(http); // once before the load, so the server's JSON and JMX code is not first run in the window
        LoadResult load = OpenLoopLoad.builder(server.uri("/work"))
            .rate(o.rate()).warmup(o.warmup()).duration(o.measure()).timeout(Duration.ofSeconds(10))
            .intervalLog(o.out().resolve(id + ".hlog"))
            .onMeasureStart(() -> {
                try {
                    before[0] = ProcessUsage.of(pid);
                    start[0] = server.stats(http);
                    server.resetStats(http);
                } catch (IOException | InterruptedException e) {
                    System.err.println("suite: " + id + ": cannot read the server's CPU time or /stats: " + e);
                } finally {
                    taken.countDown();
                }
            })
            .build()
            .run();
        if (!taken.await(START_SNAPSHOT_TIMEOUT_S, TimeUnit.SECONDS) || start[0] == null || before[0] == null) {
            throw new IllegalStateException("the measured window's start snapshot failed; see the messages above");
        }
        JsonNode end = server.stats(http);
        ProcessUsage used = ProcessUsage.of(pid).since(before[0]);
        load.save(o.out().resolve("logs").resolve(id).resolve("load.properties"));
        RepResult result = RepResult.of(slot.arm().name(), slot.rep(), load,
            List.of(new ClusterArm.NodeWindow("n1", start[0], end)), -1, used.cpuSeconds(), used.peakRssKib());
        System.err.printf(Locale.ROOT, "suite: %s: p99.9 %.2f ms, max %.2f ms, 503s %d, errors %d, CPU %.1f s%n",
            id, result.ok().getValueAtPercentile(99.9) / 1000.0, result.ok().getMaxValue() / 1000.0, result.shed(),
            result.clientErrors(), used.cpuSeconds());
        return result;
    }

    private static String footer(SuiteOptions o) {
        return String.format(Locale.ROOT, "%nOne DemoServer (`%s`), no balancer: open-loop load %.0f req/s straight"
            + " to it, timed from the intended send time; per arm and repetition a fresh server, %s. %s 503s:"
            + " client-visible, since no balancer retries them elsewhere (with the filter on, they are what shedding"
            + " costs). Raw: `<arm>-rep<N>.hlog` (interval logs), `logs/<arm>-rep<N>/`.%n",
            String.join(" ", Workload.CACHE_CHURN.args()), o.rate(), o.schedule(),
            SuiteTable.legend("the server", "the server's"));
    }
}
