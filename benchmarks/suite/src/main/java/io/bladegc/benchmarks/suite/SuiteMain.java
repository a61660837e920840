package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.benchmarks.suite.grpc.GrpcClusterRunner;
import io.bladegc.benchmarks.suite.grpc.GrpcClusterScenario;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.http.HttpClusterRunner;
import io.bladegc.benchmarks.suite.http.HttpClusterScenario;
import io.bladegc.benchmarks.suite.memory.MemoryPressureScenario;
import io.bladegc.benchmarks.suite.memory.RaftMemoryPressureScenario;
import io.bladegc.benchmarks.suite.raftkv.RaftKvScenario;
import io.bladegc.benchmarks.suite.single.CollectionRateScenario;
import io.bladegc.benchmarks.suite.single.SingleNodeScenario;
import io.bladegc.benchmarks.suite.sweep.LoadSweepScenario;
import io.bladegc.commandline.ToolCommandLine;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;

/**
 * The benchmark suite's runner for one scenario: {@value HttpClusterScenario#NAME} ({@link HttpClusterRunner}),
 * {@value SingleNodeScenario#NAME} ({@link SingleNodeScenario}), {@value MemoryPressureScenario#NAME}
 * ({@link MemoryPressureScenario}), {@value RaftKvScenario#NAME}, {@value RaftKvScenario#HEAVY_NAME},
 * {@value RaftKvScenario#COUNTER_NAME}
 * ({@link RaftKvScenario}), {@value RaftMemoryPressureScenario#NAME} ({@link RaftMemoryPressureScenario}), {@value LoadSweepScenario#NAME} ({@link LoadSweepScenario}),
 * {@value CollectionRateScenario#NAME} ({@link CollectionRateScenario}) or {@value GrpcClusterScenario#NAME}
 * ({@link GrpcClusterRunner}). Every scenario starts its processes itself and stops each by pid when it is done with
 * it, also on failure and on SIGTERM or Ctrl-C ({@link StopOnExit}), and writes into {@code --out}: {@code table.md},
 * {@code latency.png} ({@link LatencyPlot}; not {@value LoadSweepScenario#NAME}, and
 * {@value CollectionRateScenario#NAME}, whose windows are rows of their tables), the client's HdrHistogram interval
 * logs ({@code *.hlog}) and in {@code logs/} every child's output and GC log. The load generator runs in this JVM; give
 * it a young generation large enough not to collect during a run.
 *
 * <pre>
 * java -cp benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt) io.bladegc.benchmarks.suite.SuiteMain \
 *     http-cluster|single-node|memory-pressure|raft-kv|raft-kv-heavy|load-sweep|collection-rate|grpc-cluster [--quick] --agent-jar JAR --coordinator-jar JAR --out DIR ...
 * </pre>
 * Exit status: 0 when every part of the scenario completed, 1 when some failed, 2 on a bad command line.
 */
public final class SuiteMain {
    /** The scenarios, by name. */
    static final List<String> SCENARIOS = List.of(HttpClusterScenario.NAME, SingleNodeScenario.NAME,
        MemoryPressureScenario.NAME, RaftKvScenario.NAME, RaftKvScenario.HEAVY_NAME, RaftKvScenario.COUNTER_NAME,
        RaftMemoryPressureScenario.NAME, LoadSweepScenario.NAME,
        CollectionRateScenario.NAME, GrpcClusterScenario.NAME);
    /** The scenarios that run only the arms {@code --arms} names. */
    static final List<String> ARM_SCENARIOS = List.of(HttpClusterScenario.NAME, MemoryPressureScenario.NAME,
        RaftKvScenario.NAME, RaftKvScenario.HEAVY_NAME, RaftKvScenario.COUNTER_NAME, LoadSweepScenario.NAME);
    /** The scenarios whose backends' heap, workload and GC threads {@code --heap}, {@code --workload} and
     * {@code --gc-threads} set. */
    static final List<String> BACKEND_SCENARIOS = List.of(HttpClusterScenario.NAME, LoadSweepScenario.NAME);
    /** The scenarios whose backends {@code --backend-cpus} holds to a share of the cores. */
    static final List<String> CPU_LIMIT_SCENARIOS = List.of(LoadSweepScenario.NAME);

    private SuiteMain() {
    }

    public static void main(String[] args) throws Exception {
        SuiteOptions o = ToolCommandLine.parseOrExit(new SuiteOptions.Flags(args), args);
        Files.createDirectories(o.out());
        StopOnExit stop = StopOnExit.install();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
        boolean ok = switch (o.scenario()) {
            case HttpClusterScenario.NAME -> HttpClusterRunner.run(o, stop, http);
            case SingleNodeScenario.NAME -> SingleNodeScenario.run(o, stop, http);
            case MemoryPressureScenario.NAME -> MemoryPressureScenario.run(o, stop, http);
            case RaftKvScenario.NAME, RaftKvScenario.HEAVY_NAME, RaftKvScenario.COUNTER_NAME ->
                RaftKvScenario.run(o, stop);
            case RaftMemoryPressureScenario.NAME -> RaftMemoryPressureScenario.run(o, stop);
            case LoadSweepScenario.NAME -> LoadSweepScenario.run(o, stop, http);
            case CollectionRateScenario.NAME -> CollectionRateScenario.run(o, stop, http);
            case GrpcClusterScenario.NAME -> GrpcClusterRunner.run(o, stop, http);
            default -> throw new IllegalStateException("unchecked scenario " + o.scenario());
        };
        System.exit(ok ? 0 : 1);
    }
}
