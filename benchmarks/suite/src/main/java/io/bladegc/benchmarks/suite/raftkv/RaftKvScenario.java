package io.bladegc.benchmarks.suite.raftkv;

import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.raftkv.KvServer;
import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.InterleavedSchedule;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import io.bladegc.ratis.RaftBladeClients;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The {@value #NAME}, {@value #HEAVY_NAME} and {@value #COUNTER_NAME} scenarios, the BLADE paper's section 5.2 scaled to two cores: a
 * three-peer replicated key-value store on Apache Ratis ({@link KvServer}, one child JVM per peer, linearizable reads
 * under the leader lease), preloaded as its {@link RaftKvWorkload} says, under open-loop load ({@link RaftKvLoad}: 3
 * gets to 1 put, uniform random keys, one Ratis client shared by every call) at {@code --rate}, on G1, on Parallel and
 * on G1 with Blade for Raft (the agent in its default mode: the application's Raft handler drives collections, a leader
 * hands its leadership off where that pays) and on Epsilon (no collections: the floor; its heap sized from the
 * allocation the other arms' GC logs show). Every arm runs {@link SuiteOptions#repetitions} times, repetitions
 * interleaved ({@link InterleavedSchedule}), a fresh cluster each ({@link RaftKvArmRun}). Writes {@code table.md} (the
 * header with the machine's floor, {@link RaftKvTable}, {@link RaftKvHandoffs}, {@link RaftKvGoals}),
 * {@code latency.png}, {@code <arm>-rep<N>.hlog} and {@code logs/<arm>-rep<N>/<peer>/} (output, GC log, Raft storage).
 * Stateless.
 */
public final class RaftKvScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "raft-kv";
    /** The same with three times the keys and puts that rewrite them in batches ({@link RaftKvWorkload}): G1 marks. */
    public static final String HEAVY_NAME = "raft-kv-heavy";
    /**
     * A small store whose peers allocate besides it, on 512 MiB heaps ({@link RaftKvWorkload}): the counter service a
     * Ratis user ran in issue 34.
     */
    public static final String COUNTER_NAME = "raft-counter";
    /** Epsilon's JVM lives through start-up and preload (allowed this much), warm-up, window and drain. */
    private static final Duration EPSILON_SETUP = Duration.ofSeconds(60);
    private static final double EPSILON_MARGIN = 1.5;
    /** Epsilon heap per peer when no other arm measured an allocation rate. */
    static final long EPSILON_DEFAULT_MIB = 4096;
    /** The most heap an Epsilon peer is given. */
    static final long EPSILON_MAX_MIB = 6144;

    private RaftKvScenario() {
    }

    /** @return the heap flags of the G1 and Parallel arms: 1 GiB, 512 MiB in {@value #COUNTER_NAME} */
    static List<String> heap(SuiteOptions o) {
        return COUNTER_NAME.equals(o.scenario()) ? List.of("-Xms512m", "-Xmx512m") : List.of("-Xms1g", "-Xmx1g");
    }

    /**
     * @return Parallel's young generation, a quarter of the heap (a young collection every few seconds at the default
     *     rate)
     */
    static String young(SuiteOptions o) {
        return COUNTER_NAME.equals(o.scenario()) ? "-Xmn128m" : "-Xmn256m";
    }

    /** @return warm-up: 5 s quick, 30 s full */
    public static Duration warmup(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 5 : 30);
    }

    /** @return the measured window: 20 s quick, 120 s full */
    static Duration measure(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 20 : 120);
    }

    /**
     * @param allocationMibPerSecond the most a peer allocated in the other arms, NaN when unknown
     * @param lifetime               how long an Epsilon peer runs
     * @return Epsilon's heap per peer, MiB: allocation x lifetime x {@value #EPSILON_MARGIN}, in steps of 256 MiB,
     *     at least 1 GiB and at most {@link #EPSILON_MAX_MIB}; {@link #EPSILON_DEFAULT_MIB} when unknown
     */
    static long epsilonHeapMib(double allocationMibPerSecond, Duration lifetime) {
        if (Double.isNaN(allocationMibPerSecond)) {
            return EPSILON_DEFAULT_MIB;
        }
        double need = allocationMibPerSecond * lifetime.toMillis() / 1000.0 * EPSILON_MARGIN;
        long rounded = (long) Math.ceil(need / 256) * 256;
        return Math.min(EPSILON_MAX_MIB, Math.max(1024, rounded));
    }

    /** @return the larger of two values, either of which may be NaN (unknown); NaN only when both are */
    static double maxKnown(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }

    /**
     * Runs every arm's repetitions, interleaved, and writes the results.
     *
     * @param o    the command line
     * @param stop holds each running cluster, for a shutdown during the run
     * @return whether every repetition of every arm completed
     */
    public static boolean run(SuiteOptions o, StopOnExit stop) throws Exception {
        RaftKvWorkload workload = RaftKvWorkload.of(o);
        String header = SuiteReport.header(o.scenario(), o.quick(), o.command(), System.getProperty("java.version")
            + " (runs the load and every peer)") + String.format(Locale.ROOT, "- load: %.0f requests/s, 3 gets : 1"
            + " put, %s, %d s warm-up, %d s measured, %d repetition(s) per arm, interleaved%n", o.rate(),
            workload.describe(), warmup(o).toSeconds(), measure(o).toSeconds(), o.repetitions());
        Path java = ClusterSpec.currentJava();
        List<String> parallel = new ArrayList<>(BackendFlags.of(BackendFlags.PARALLEL, heap(o)));
        parallel.add(young(o));
        List<Arm> arms = Arm.select(List.of(
            new Arm(RaftKvGoals.G1, java, BackendFlags.of(BackendFlags.G1, heap(o)), BladeMode.NONE, "G1, no agent"),
            new Arm(RaftKvGoals.BLADE_PARALLEL, java, parallel, BladeMode.GCI,
                "Parallel (fixed eden), the agent in its default mode (Blade for Raft drives collections)"),
            new Arm(RaftKvGoals.BLADE_G1, java, BackendFlags.of(BackendFlags.G1, heap(o)), BladeMode.GCI,
                "G1, the agent in its default mode (Blade for Raft drives collections)"),
            epsilon(java, EPSILON_DEFAULT_MIB)), o.arms());
        Duration lifetime = EPSILON_SETUP.plus(warmup(o)).plus(measure(o)).plus(RaftKvClients.DEADLINE);
        List<RaftKvRep> reps = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<Arm> shown = new ArrayList<>(arms);
        double allocation = Double.NaN;
        for (InterleavedSchedule.Slot slot : InterleavedSchedule.of(arms, o.repetitions())) {
            Arm arm = slot.arm();
            if (arm.name().equals(RaftKvGoals.EPSILON)) {
                long mib = epsilonHeapMib(allocation, lifetime);
                arm = epsilon(java, mib);
                shown.set(arms.indexOf(slot.arm()), arm);
                notes.add(String.format(Locale.ROOT, "`epsilon` rep %d: heap %,d MiB per peer (allocation %s MiB/s"
                    + " seen so far)", slot.rep(), mib, Double.isNaN(allocation) ? "unknown"
                    : String.format(Locale.ROOT, "%.1f", allocation)));
            }
            RaftKvRep r = RaftKvArmRun.run(arm, slot.rep(), o, workload, stop);
            reps.add(r);
            allocation = maxKnown(allocation, r.allocation());
            if (r.failure() != null) {
                notes.add("`" + r.arm() + "` rep " + r.rep() + (r.measured() ? ": " : " failed: ") + r.failure());
            }
        }
        List<String> names = arms.stream().map(Arm::name).toList();
        Map<String, Histogram> lines = new LinkedHashMap<>();
        names.forEach(n -> lines.put(n, RaftKvTable.merged(reps.stream().filter(r -> r.arm().equals(n)).toList())));
        LatencyPlot.write(o.out().resolve("latency.png"), String.format(Locale.ROOT, "%s: latency at the client,"
            + " %.0f req/s, %d repetition(s) merged", o.scenario(), o.rate(), o.repetitions()), lines);
        StringBuilder md = new StringBuilder(header).append('\n')
            .append(RaftKvTable.markdown(names, reps)).append('\n')
            .append(RaftKvHandoffs.markdown(reps)).append('\n')
            .append(RaftKvGoals.markdown(names, reps, Runtime.getRuntime().availableProcessors(), o.scenario()))
            .append('\n')
            .append(SuiteReport.armLines(shown));
        notes.forEach(n -> md.append("- ").append(n).append('\n'));
        md.append(footer(o, workload, lifetime));
        SuiteReport.write(o.out(), md.toString());
        return reps.stream().allMatch(r -> r.failure() == null);
    }

    /** @return the Epsilon arm with {@code heapMib} per peer */
    private static Arm epsilon(Path java, long heapMib) {
        List<String> flags = new ArrayList<>(List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC",
            "-Xms" + heapMib + "m", "-Xmx" + heapMib + "m", "-XX:+ExitOnOutOfMemoryError"));
        flags.addAll(BackendFlags.COMMON); // pre-touched like every arm: a first touch costs a page fault
        return new Arm(RaftKvGoals.EPSILON, java, flags, BladeMode.NONE, "Epsilon (no collections), no agent, heap"
            + " pre-touched as every arm's (not pre-touched, the floor paid a page fault per first touch: 1.7 cores"
            + " busy where G1 used 1.2), a peer that fills it exits (the run then reports it); the flags of its last"
            + " repetition, its heap per repetition below");
    }

    private static String footer(SuiteOptions o, RaftKvWorkload workload, Duration lifetime) {
        return String.format(Locale.ROOT, "%nThree `KvServer` peers (Ratis 3.2.2, gRPC on loopback, linearizable"
            + " reads under the leader lease, election timeout 150-300 ms), a fresh cluster per arm and repetition,"
            + " every peer in its own JVM with one GC thread of each kind and a GC log; the load generator runs in"
            + " the suite's JVM. Repetitions: %d per arm, odd ones in the order above, even ones reversed. Store:"
            + " %s (preloaded with one `PRELOAD` command). Load: open loop, constant rate %.0f/s, request i due at"
            + " start + i/rate; 3 in 4 gets (`sendReadOnly`), 1 in 4 puts (`send`), keys uniformly random (seeded); calls on " + RaftKvClients.REQUEST_THREADS
            + " request threads (a call due"
            + " while all are busy waits, its latency counted from its due time), all on one shared Ratis client, as an"
            + " application's request threads share their process's client (each blocking call is a gRPC call of its"
            + " own, so a slow call holds only itself; the first call redirected teaches the client a new leader). The"
            + " client as Blade for Raft tells its users (`RaftBladeClients`): blocking calls (`io()`), a failed"
            + " attempt sent again after %d ms, each later one after twice as long up to %d ms (drawn from the upper"
            + " half), never given up, a request timeout of %d ms, a write refused while the leader steps down, and a"
            + " call whose connection the client replaced under it, sent again; the load generator judges a call timed"
            + " out %d s after it was made;"
            + " failed calls are counted by the exception that failed them. Latency: from the intended"
            + " send time to the answer (no coordinated omission), answered requests, HdrHistogram 3 digits,"
            + " `<arm>-rep<N>.hlog` per second; latency rows merge the repetitions, counts add them up. Failed"
            + " client calls: calls that ended without an answer before their deadline; timed out: no answer by the"
            + " deadline, or by %d s after the window's last request. Hand-offs and elections: the peers' output,"
            + " each line stamped to the millisecond: a hand-off starts at Ratis's `start transferring leadership`"
            + " line and lasts what Blade's `handed <group> to <peer> in <ms> ms` says (a hand-off that did not"
            + " complete, Blade's `not handed off within <ms> ms`, lasts that long); an election is a Ratis `ELECTION"
            + " round` at a new term (pre-votes do not count); one that began while a hand-off ran is that hand-off's;"
            + " the others are the elections a collection (or anything else) caused. Terms advanced, from each peer's"
            + " `GroupManagementApi.info` at the window's start and end, cross-check them: each completed hand-off"
            + " and each election advances the term by one. A hand-off's requests: those due from its start until"
            + " %d ms after its end. Collections and the longest pause: `[gc]` pause lines of each peer's GC log"
            + " written during the window. Cores busy: `/proc/stat` (machine) and `/proc/<pid>/stat` (the peers, the"
            + " suite's JVM) over the window; 1 ms sleeps: a thread of the load generator's JVM sleeping 1 ms at a"
            + " time through the window. Epsilon's heap: the busiest peer's allocation in the runs before it (the"
            + " heap before each pause less after the previous one, over the uptime, from the GC logs) x %d s"
            + " lifetime x %.1f, in steps of 256 MiB, within 1,024..%,d MiB (%,d MiB when unknown), pre-touched"
            + " as every arm. Raw: `<arm>-rep<N>.hlog`, `logs/<arm>-rep<N>/<peer>/`.%n",
            o.repetitions(), workload.describe(), o.rate(),
            RaftBladeClients.RETRY_SLEEP_MILLIS, RaftBladeClients.MAX_RETRY_SLEEP_MILLIS,
            RaftBladeClients.REQUEST_TIMEOUT_MILLIS,
            RaftKvClients.DEADLINE.toSeconds(), RaftKvClients.DEADLINE.plusSeconds(1).toSeconds(),
            RaftKvHandoffs.AFTER_MILLIS, lifetime.toSeconds(), EPSILON_MARGIN, EPSILON_MAX_MIB, EPSILON_DEFAULT_MIB);
    }
}
