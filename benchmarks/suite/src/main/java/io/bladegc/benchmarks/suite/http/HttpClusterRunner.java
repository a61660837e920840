package io.bladegc.benchmarks.suite.http;

import io.bladegc.benchmarks.cluster.Cluster;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendUsage;
import io.bladegc.benchmarks.suite.harness.InterleavedSchedule;
import io.bladegc.benchmarks.suite.harness.JavaInstallation;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.RepResult;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import io.bladegc.benchmarks.suite.harness.SuiteTable;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

/**
 * Runs the {@value HttpClusterScenario#NAME} scenario ({@link HttpClusterScenario}'s arms): every arm on a fresh
 * {@link Cluster} per repetition, repetitions interleaved ({@link InterleavedSchedule}); then for
 * {@link HttpClusterScenario#CAPACITY_ARMS} the highest rate with p99.9 under the capacity target
 * ({@link ClusterRateSearch}). Writes {@code table.md} ({@link SuiteTable}, the capacity table, {@link GoalsTable}),
 * {@code latency.png}, per arm and repetition {@code <arm>-rep<N>.hlog} and
 * {@code logs/<arm>-rep<N>/} (the children's output, GC logs, {@code load.properties}). An arm that fails is
 * reported and the scenario goes on. Stateless.
 */
public final class HttpClusterRunner {
    private HttpClusterRunner() {
    }

    /**
     * @param o    the command line
     * @param stop holds each running cluster, for a shutdown during the run
     * @param http a client for the control requests
     * @return whether every repetition of every arm completed
     */
    public static boolean run(SuiteOptions o, StopOnExit stop, HttpClient http) throws Exception {
        Optional<JavaInstallation> newer = JavaInstallation.find(o.jvmDir(), 21);
        String header = SuiteReport.header(HttpClusterScenario.NAME, o.quick(), o.command(),
            System.getProperty("java.version") + " (default, runs the load and most arms)"
            + newer.map(j -> ", " + j.version() + " (" + j.java() + ", genzgc and shenandoah)").orElse(""));
        List<String> notes = new ArrayList<>();
        List<Arm> arms = Arm.select(HttpClusterScenario.arms(ClusterSpec.currentJava(), newer,
            o.heap(), o.gcThreads(), o.workload(), o.rate(), o.warmup().plus(o.measure()), notes), o.arms());
        notes.forEach(n -> System.err.println("suite: " + n));
        List<RepResult> results = new ArrayList<>();
        Map<String, Integer> failures = new HashMap<>();
        ClusterSpec.BladeParts jars = new ClusterSpec.BladeParts(o.agentJar(), o.coordinatorJar(),
            ClusterDemo.COORDINATOR_ARGS);
        for (InterleavedSchedule.Slot slot : InterleavedSchedule.of(arms, o.repetitions())) {
            String id = slot.arm().name() + "-rep" + slot.rep();
            Path logDir = o.out().resolve("logs").resolve(id);
            ClusterSpec spec = slot.arm().clusterSpec(ClusterDemo.BACKENDS, o.workload().args(),
                System.getProperty("java.class.path"), o.haproxy(), jars, logDir);
            System.err.printf(Locale.ROOT, "suite: %s: %s; %.0f req/s, warm-up %d s, measured %d s%n", id,
                spec.backendJvmFlags(), o.rate(), o.warmup().toSeconds(), o.measure().toSeconds());
            try (Cluster cluster = stop.hold(new Cluster())) {
                cluster.start(spec, http);
                results.add(runArm(slot, cluster, o, http));
            } catch (Exception e) {
                System.err.println("suite: " + id + " failed: " + e + " (logs in " + logDir + ")");
                failures.merge(slot.arm().name(), 1, Integer::sum);
            } finally {
                stop.release();
            }
        }
        Map<String, ClusterRateSearch.Outcome> capacity = new LinkedHashMap<>();
        for (Arm arm : arms) {
            if (HttpClusterScenario.CAPACITY_ARMS.contains(arm.name())) {
                capacity.put(arm.name(), new ClusterRateSearch(o, arm, arm.name() + "-capacity",
                    o.workload().args(), HttpClusterScenario.capacitySearch(o),
                    HttpClusterScenario.CAPACITY_PERCENTILE, HttpClusterScenario.capacitySettle(o),
                    HttpClusterScenario.capacityWindow(o), http).run(stop));
            }
        }
        List<String> names = arms.stream().map(Arm::name).toList();
        Map<String, Histogram> lines = SuiteTable.mergedByArm(names, results);
        LatencyPlot.write(o.out().resolve("latency.png"), HttpClusterScenario.NAME + ": 2xx latency at the client, "
            + o.repetitions() + " repetition(s) merged", lines);
        Map<String, Optional<RateSearch.Probe>> highest = new LinkedHashMap<>();
        capacity.forEach((arm, c) -> highest.put(arm, c.search().flatMap(RateSearch.Result::passed)));
        StringBuilder md = new StringBuilder(header).append('\n')
            .append(SuiteTable.markdown(names, results, failures)).append('\n')
            .append(capacityTable(capacity)).append('\n')
            .append(GoalsTable.markdown(lines, results, highest)).append('\n')
            .append(SuiteReport.armLines(arms));
        notes.forEach(n -> md.append("- ").append(n).append('\n'));
        md.append(footer(o));
        SuiteReport.write(o.out(), md.toString());
        return failures.isEmpty();
    }

    /** Runs one arm on its started cluster, reading the backends' CPU time around the measured window. */
    private static RepResult runArm(InterleavedSchedule.Slot slot, Cluster cluster, SuiteOptions o, HttpClient http)
            throws Exception {
        BackendUsage usage = BackendUsage.of(cluster);
        String id = slot.arm().name() + "-rep" + slot.rep();
        ClusterArm.Result r = ClusterArm.run(slot.arm().name(), cluster, o.rate(), o.warmup(), o.measure(), http,
            o.out().resolve(id + ".hlog"), usage::start, null);
        BackendUsage.Window used = usage.finish();
        double cpu = used.cpuSeconds();
        long peak = used.peakRssKib();
        r.load().save(o.out().resolve("logs").resolve(id).resolve("load.properties"));
        RepResult result = RepResult.of(slot.arm().name(), slot.rep(), r, cpu, peak);
        System.err.printf(Locale.ROOT, "suite: %s: p99.9 %.2f ms, max %.2f ms, 503s %d, retries %d, errors %d,"
            + " CPU %.1f s%n", id, result.ok().getValueAtPercentile(99.9) / 1000.0, result.ok().getMaxValue() / 1000.0,
            result.shed(), result.retries(), result.clientErrors(), cpu);
        return result;
    }

    /** @return per searched arm the highest rate that kept p99.9 under the capacity target, and where it missed */
    private static String capacityTable(Map<String, ClusterRateSearch.Outcome> capacity) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "| capacity | highest rate with p99.9 < %d"
            + " ms and no client-visible error (/s) | p99.9 there (ms) | lowest rate that missed (/s) | windows |"
            + " note |%n|---|---:|---:|---:|---:|---|%n", HttpClusterScenario.CAPACITY_TARGET_MICROS / 1000));
        capacity.forEach((arm, c) -> {
            Optional<RateSearch.Probe> best = c.search().flatMap(RateSearch.Result::passed);
            Optional<RateSearch.Probe> missed = c.search().flatMap(RateSearch.Result::missed);
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %d | %s |%n", arm,
                best.map(b -> String.format(Locale.ROOT, "%.0f", b.rate())).orElse("none"),
                best.map(b -> String.format(Locale.ROOT, "%.2f", b.latencyMicros() / 1000.0)).orElse("-"),
                missed.map(m -> String.format(Locale.ROOT, "%.0f", m.rate())).orElse("-"),
                c.search().map(r -> r.probes().size()).orElse(0), c.failure().orElse("").replace('|', '/')));
        });
        return sb.toString();
    }

    private static String footer(SuiteOptions o) {
        return String.format(Locale.ROOT, "%n%d backends behind HAProxy (retry-on 503, redispatch), open-loop load"
            + " %.0f req/s from the intended send time; per arm and repetition a fresh cluster, %s. %s Capacity: after"
            + " the repetitions, per searched arm one fresh cluster and windows of open-loop load (the first after a %d s"
            + " warm-up, the others after %d s; %d s measured), from %.0f req/s up by x1.5 (down when it already"
            + " misses), bisected to within 10 %%; a window passes with p99.9 under %d ms and no 503, other status,"
            + " I/O error or timeout. Raw: `<arm>-rep<N>.hlog`, `<arm>-capacity-<rate>.hlog` (interval logs),"
            + " `logs/`.%n", ClusterDemo.BACKENDS, o.rate(), o.schedule(),
            SuiteTable.legend("the three backends", "the largest backend's"), o.warmup().toSeconds(), HttpClusterScenario.capacitySettle(o).toSeconds(),
            HttpClusterScenario.capacityWindow(o).toSeconds(), HttpClusterScenario.capacitySearch(o).startRate(),
            HttpClusterScenario.CAPACITY_TARGET_MICROS / 1000);
    }
}
