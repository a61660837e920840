package io.bladegc.benchmarks.suite.grpc;

import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.grpc.GrpcBackend;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.EpsilonHeap;
import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.benchmarks.suite.http.HttpClusterScenario;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code grpc-cluster} scenario: {@link #BACKENDS} {@link GrpcBackend} JVMs ({@code grpc.testing.SimpleService}
 * behind Blade's interceptor, with http-cluster's heap and per-request work: {@link #LIVE_MB} MiB live set in
 * {@link #OBJECT_BYTES}-byte arrays, {@link #GARBAGE_KB} KiB of garbage and {@link #CHURN_KB} KiB of the live set
 * replaced per unary call, so that G1 pauses as it does there), no balancer: the client in the
 * suite's JVM balances ({@code round_robin}) and retries {@code UNAVAILABLE} after the backend's
 * {@code grpc-retry-pushback-ms} ({@link GrpcOpenLoop}, {@link io.bladegc.benchmarks.grpc.RoundRobinChannel}). One
 * arm per collector or Blade mode: {@code g1} (G1, no agent), {@code blade-parallel} (Parallel, the agent in
 * coordinated mode, the coordinator in generic mode granting one slot, as GrpcClusterIT runs them), {@code epsilon}
 * (no collection: the floor, its heap sized for the whole run). Stateless.
 */
public final class GrpcClusterScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "grpc-cluster";
    /** How many backends. */
    static final int BACKENDS = 3;
    /** The live set, MiB: http-cluster's ({@link Workload#CACHE_CHURN}). */
    static final int LIVE_MB = 384;
    /** The live set's arrays, bytes: http-cluster's. */
    static final int OBJECT_BYTES = 64;
    /** Garbage per unary call, KiB: http-cluster's per request. */
    static final int GARBAGE_KB = 32;
    /** Live set replaced per unary call, KiB: http-cluster's per request. */
    static final int CHURN_KB = 64;
    /**
     * Attempts per call, GrpcClusterIT's: {@code round_robin} sends a retry to any backend, back to the shedding one
     * one time in three.
     */
    static final int MAX_ATTEMPTS = 8;
    /** Epsilon's heap besides the per-call garbage and churn: http-cluster's (the live set, classes, start-up). */
    static final int EPSILON_BASE_MIB = HttpClusterScenario.EPSILON_BASE_MIB;
    /**
     * The coordinator's options, http-cluster's ({@link ClusterDemo#COORDINATOR_ARGS}): K = 1 and a second slot for a
     * node whose JVM is about to collect while another collects; in generic mode (no balancer to drive). With K = 1
     * alone (2026-11-27) a backend's young collection that came due during another's full one ran on its own, with
     * calls in flight: in a quick run the largest spike of Blade's latency, 64 ms, was one backend's 58 ms young
     * collection inside another's 482 ms full one (their GC logs, time-stamped).
     */
    static final List<String> COORDINATOR_ARGS = ClusterDemo.COORDINATOR_ARGS;

    private GrpcClusterScenario() {
    }

    /**
     * @return warm-up: 10 s quick (longer than the other scenarios' 3 s: a cold grpc-java client and server on two
     *     busy cores still queue calls for seconds after the first 3 s), 15 s full
     */
    static Duration warmup(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 10 : 15);
    }

    /** @return the measured window: 10 s quick, 60 s full */
    static Duration measure(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 10 : 60);
    }

    /**
     * @param java    the backends' {@code java}
     * @param rate    calls per second, over all backends
     * @param runTime warm-up plus measured window of one arm (sizes Epsilon's heap)
     * @param notes   receives a line on Epsilon's heap
     * @return the arms, in the order the first repetition runs them
     */
    static List<Arm> arms(Path java, double rate, Duration runTime, List<String> notes) {
        List<String> heap = HttpClusterScenario.HEAP;
        EpsilonHeap epsilon = new EpsilonHeap(EPSILON_BASE_MIB, rate / BACKENDS, GARBAGE_KB + CHURN_KB, runTime);
        notes.add(epsilon.note());
        return List.of(
            new Arm("g1", java, BackendFlags.of(BackendFlags.G1, heap), BladeMode.NONE, "G1, no agent"),
            new Arm("blade-parallel", java, BackendFlags.of(HttpClusterScenario.PARALLEL, heap), BladeMode.COORDINATED,
                "Parallel (fixed 96 MiB young generation), interceptor + agent coordinated, coordinator in generic"
                    + " mode (K = 1, a second slot for a due node)"),
            new Arm("epsilon", java, BackendFlags.of(List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC"),
                List.of("-Xms" + epsilon.mib() + "m", "-Xmx" + epsilon.mib() + "m")), BladeMode.NONE,
                "Epsilon (no collection): the floor"));
    }

    /**
     * @param blade whether the backend's interceptor runs Blade
     * @return {@link GrpcBackend}'s arguments after the node's name
     */
    static List<String> work(boolean blade) {
        return List.of(Integer.toString(GARBAGE_KB), blade ? "on" : "off", Integer.toString(LIVE_MB),
            Integer.toString(CHURN_KB), Integer.toString(OBJECT_BYTES));
    }

    /** @return the report's footer: what ran, how it was measured, where the raw data is */
    static String footer(SuiteOptions o) {
        return String.format(Locale.ROOT, "%n%d `GrpcBackend` JVMs (per unary call %d KiB of garbage and %d KiB of a"
            + " %d MiB live set of %d-byte arrays replaced, http-cluster's work per request; Blade's"
            + " interceptor, a pass-through without the agent), no balancer: one grpc-java channel in the suite's JVM"
            + " over the three (`round_robin`, retry on UNAVAILABLE after the backend's `grpc-retry-pushback-ms`, at"
            + " most %d attempts). Open-loop unary calls, %.0f/s, call i due at start + i/rate, each with a %d s"
            + " deadline; per arm and repetition fresh backends (and coordinator), %d s warm-up, %d s measured; %d"
            + " repetition(s), odd ones in the order above, even ones reversed. Latency rows: calls that ended"
            + " OK, from each call's due time to its final status (retries included, no coordinated omission),"
            + " HdrHistogram 3 digits, all repetitions merged. Failed calls: any other final status, or none by %d s"
            + " after the window's last call. Collections: the backends' own GC notifications in the window (pauses)."
            + " Raw: `<arm>-rep<N>.hlog` (interval logs), `logs/`.%n", BACKENDS, GARBAGE_KB, CHURN_KB, LIVE_MB,
            OBJECT_BYTES, MAX_ATTEMPTS, o.rate(),
            GrpcOpenLoop.DEADLINE.toSeconds(), warmup(o).toSeconds(), measure(o).toSeconds(), o.repetitions(),
            GrpcOpenLoop.DEADLINE.plusSeconds(1).toSeconds());
    }
}
