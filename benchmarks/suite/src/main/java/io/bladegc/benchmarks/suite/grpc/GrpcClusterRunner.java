package io.bladegc.benchmarks.suite.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.cluster.GrpcBackendProcess;
import io.bladegc.benchmarks.grpc.RoundRobinChannel;
import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.InterleavedSchedule;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Runs the {@value GrpcClusterScenario#NAME} scenario ({@link GrpcClusterScenario}'s arms): every arm on fresh
 * processes per repetition ({@link GrpcCluster}), repetitions interleaved ({@link InterleavedSchedule}), open-loop load
 * from this JVM ({@link GrpcOpenLoop}). Writes {@code table.md} ({@link GrpcClusterTable} and its goals),
 * {@code latency.png}, per arm and repetition {@code <arm>-rep<N>.hlog} and {@code logs/<arm>-rep<N>/} (the children's
 * output and GC logs). An arm that fails is reported and the scenario goes on. Stateless.
 */
public final class GrpcClusterRunner {
    private GrpcClusterRunner() {
    }

    /**
     * @param o    the command line
     * @param stop holds each running cluster, for a shutdown during the run
     * @param http a client for the backends' {@code /stats} and the coordinator
     * @return whether every repetition of every arm completed
     */
    public static boolean run(SuiteOptions o, StopOnExit stop, HttpClient http) throws Exception {
        String header = SuiteReport.header(GrpcClusterScenario.NAME, o.quick(), o.command(),
            System.getProperty("java.version") + " (runs the load and every backend)");
        List<String> notes = new ArrayList<>();
        List<Arm> arms = GrpcClusterScenario.arms(ClusterSpec.currentJava(), o.rate(),
            GrpcClusterScenario.warmup(o).plus(GrpcClusterScenario.measure(o)), notes);
        notes.forEach(n -> System.err.println("suite: " + n));
        List<GrpcRep> results = new ArrayList<>();
        Map<String, Integer> failures = new HashMap<>();
        for (InterleavedSchedule.Slot slot : InterleavedSchedule.of(arms, o.repetitions())) {
            String id = slot.arm().name() + "-rep" + slot.rep();
            Path logDir = o.out().resolve("logs").resolve(id);
            System.err.printf(Locale.ROOT, "suite: %s: %s; %.0f calls/s, warm-up %d s, measured %d s%n", id,
                slot.arm().jvmFlags(), o.rate(), GrpcClusterScenario.warmup(o).toSeconds(),
                GrpcClusterScenario.measure(o).toSeconds());
            try (GrpcCluster cluster = stop.hold(new GrpcCluster())) {
                cluster.start(slot.arm(), o, logDir, http);
                results.add(runArm(slot, cluster.backends(), o, http));
            } catch (Exception e) {
                System.err.println("suite: " + id + " failed: " + e + " (logs in " + logDir + ")");
                failures.merge(slot.arm().name(), 1, Integer::sum);
            } finally {
                stop.release();
            }
        }
        List<String> names = arms.stream().map(Arm::name).toList();
        Map<String, Histogram> lines = new LinkedHashMap<>();
        names.forEach(n -> lines.put(n, GrpcClusterTable.merged(results.stream().filter(r -> r.arm().equals(n))
            .toList())));
        LatencyPlot.write(o.out().resolve("latency.png"), GrpcClusterScenario.NAME + ": latency of OK unary calls at"
            + " the client, " + o.repetitions() + " repetition(s) merged", lines);
        StringBuilder md = new StringBuilder(header).append('\n')
            .append(GrpcClusterTable.markdown(names, results, failures)).append('\n')
            .append(GrpcClusterTable.goals(lines)).append('\n')
            .append(SuiteReport.armLines(arms));
        notes.forEach(n -> md.append("- ").append(n).append('\n'));
        md.append(GrpcClusterScenario.footer(o));
        SuiteReport.write(o.out(), md.toString());
        return failures.isEmpty();
    }

    /** Runs the load on a channel over the started backends, reading their {@code /stats} around the window. */
    private static GrpcRep runArm(InterleavedSchedule.Slot slot, List<GrpcBackendProcess> backends, SuiteOptions o,
                                  HttpClient http) throws Exception {
        String id = slot.arm().name() + "-rep" + slot.rep();
        List<JsonNode> start = new ArrayList<>();
        List<JsonNode> end = new ArrayList<>();
        GrpcOpenLoop.Result load;
        try (RoundRobinChannel channel = RoundRobinChannel.open(backends.stream()
                .map(GrpcBackendProcess::grpcAddress).toList(), GrpcClusterScenario.MAX_ATTEMPTS)) {
            load = new GrpcOpenLoop(channel.channel(), o.rate()).run(GrpcClusterScenario.warmup(o),
                GrpcClusterScenario.measure(o), o.out().resolve(id + ".hlog"),
                () -> snapshot(backends, http, true, start), () -> snapshot(backends, http, false, end));
        }
        if (start.size() != backends.size()) {
            throw new IllegalStateException("the backends' /stats at the window's start could not be read");
        }
        GrpcRep r = GrpcRep.of(slot.arm().name(), slot.rep(), load, start, end);
        System.err.printf(Locale.ROOT, "suite: %s: p99.9 %.2f ms, max %.2f ms, calls %d, failed %d, shed %d,"
            + " collections %d%n", id, r.load().ok().getValueAtPercentile(99.9) / 1000.0,
            r.load().ok().getMaxValue() / 1000.0, r.load().calls(), r.load().failed(), r.shed(), r.collections());
        return r;
    }

    /** Reads every backend's {@code /stats} into {@code into}, after {@code /stats/reset} when {@code reset}. */
    private static void snapshot(List<GrpcBackendProcess> backends, HttpClient http, boolean reset,
                                 List<JsonNode> into) {
        try {
            for (GrpcBackendProcess b : backends) {
                if (reset) {
                    b.resetStats(http);
                }
                into.add(b.stats(http));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading /stats", e);
        }
    }
}
