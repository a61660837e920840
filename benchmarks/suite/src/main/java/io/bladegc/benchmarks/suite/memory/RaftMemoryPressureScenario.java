package io.bladegc.benchmarks.suite.memory;

import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.JavaInstallation;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import io.bladegc.benchmarks.suite.harness.SuiteTable;
import io.bladegc.benchmarks.suite.raftkv.RaftKvClients;
import io.bladegc.benchmarks.suite.raftkv.RaftKvCluster;
import io.bladegc.benchmarks.suite.raftkv.RaftKvGoals;
import io.bladegc.benchmarks.suite.raftkv.RaftKvLoad;
import io.bladegc.benchmarks.suite.raftkv.RaftKvRequests;
import io.bladegc.benchmarks.suite.raftkv.RaftKvScenario;
import io.bladegc.benchmarks.suite.raftkv.RaftKvWorkload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@value #NAME} scenario, paper 001's experiment on Raft: as the heap shrinks toward the store's live set, the
 * highest request rate that keeps the client's p99 under {@value #TARGET_P99_MILLIS} ms (paper 001's target), for G1
 * alone, generational ZGC on a JDK 21 or newer (found under {@code --jvm-dir}; the arm is skipped with a note when
 * there is none), Blade on G1 and Blade on Parallel, on {@value RaftKvScenario#HEAVY_NAME}'s workload. First it
 * measures the live footprint: one G1 cluster with a heap of {@link #FOOTPRINT_HEAP}, preloaded, then
 * {@code jcmd <pid> GC.run} on each peer and the heap after that full collection in its GC log (the largest of the
 * three). Then for each heap ratio (heap = ratio x footprint) and arm one fresh cluster ({@link RaftKvCluster}),
 * preloaded, and a {@link RateSearch} on it: windows of {@link RaftKvLoad}'s open-loop load (the first after a
 * warm-up, later ones after a settle), from {@code --rate} up by {@link #GROWTH} until p99 misses or a call fails or
 * times out, then bisected. A peer that exits (the JVMs run with {@code -XX:+ExitOnOutOfMemoryError}) ends that
 * search, reported in the table. Writes {@code table.md} ({@link MemoryPressureTable}), {@code <arm>-x<ratio>-<rate>.hlog}
 * per window and {@code logs/}. Stateless.
 */
public final class RaftMemoryPressureScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "raft-memory-pressure";
    /** Paper 001's latency target: p99 under 20 ms. */
    static final long TARGET_P99_MILLIS = 20;
    /** Heap over live footprint, largest first: the three. */
    static final List<Double> RATIOS = List.of(8.0, 2.0, 1.25);
    /** Factor between rates before the first miss. */
    static final double GROWTH = 1.5;
    /** The search's floor and ceiling, requests per second. */
    static final double MIN_RATE = 10;
    static final double MAX_RATE = 2_000;
    /** Bisection ends when the lowest miss is within this factor of the highest pass. */
    static final double RESOLUTION = 1.15;
    /** The footprint cluster's heap: room for the store, so that nothing but the forced collection compacts it. */
    static final String FOOTPRINT_HEAP = "2g";
    /** A forced full collection in a GC log: {@code jcmd GC.run}'s ("Diagnostic Command") or {@code System.gc()}'s. */
    private static final Pattern FULL = Pattern.compile(
        "Pause Full \\((?:Diagnostic Command|System\\.gc\\(\\))\\) \\d+M->(\\d+)M");

    private RaftMemoryPressureScenario() {
    }

    /** @return the rate search: quick 4 windows at most, full 7 */
    static RateSearch search(SuiteOptions o) {
        return new RateSearch(TimeUnit.MILLISECONDS.toMicros(TARGET_P99_MILLIS), 0, Math.max(o.rate(), MIN_RATE),
            GROWTH, MIN_RATE, Math.max(o.rate(), MAX_RATE), o.quick() ? 4 : 7, RESOLUTION);
    }

    /** @return load before a later window: quick 2 s, full 5 s */
    static Duration settle(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 2 : 5);
    }

    /** @return each measured window: quick 6 s, full 20 s */
    static Duration window(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 6 : 20);
    }

    /**
     * @param java      the JDK 17 the suite runs on
     * @param newer     a JDK 21 or newer, for generational ZGC; empty to leave that arm out
     * @param heapSize  every peer's heap as {@code -Xmx} takes it ({@code 569m}), or a placeholder for the table
     * @param youngSize Parallel's young generation likewise, a quarter of the heap
     * @return {@code g1}, {@code genzgc} (when {@code newer}), {@code blade-g1} and {@code blade-parallel}, all
     *     exiting on {@code OutOfMemoryError}
     */
    static List<Arm> arms(Path java, Optional<JavaInstallation> newer, String heapSize, String youngSize) {
        List<String> heap = List.of("-Xms" + heapSize, "-Xmx" + heapSize, "-XX:+ExitOnOutOfMemoryError");
        List<String> parallel = new ArrayList<>(BackendFlags.of(BackendFlags.PARALLEL, heap));
        parallel.add("-Xmn" + youngSize);
        List<Arm> arms = new ArrayList<>();
        arms.add(new Arm(RaftKvGoals.G1, java, BackendFlags.of(BackendFlags.G1, heap), BladeMode.NONE, "G1, no agent"));
        newer.ifPresent(jdk -> arms.add(new Arm("genzgc", jdk.java(), BackendFlags.of(jdk.feature() < 23
            ? List.of("-XX:+UseZGC", "-XX:+ZGenerational") : List.of("-XX:+UseZGC"), heap), BladeMode.NONE,
            "generational ZGC, JDK " + jdk.version() + ", no agent, one GC thread of each kind as every arm")));
        arms.add(new Arm(RaftKvGoals.BLADE_G1, java, BackendFlags.of(BackendFlags.G1, heap), BladeMode.GCI,
            "G1, the agent in its default mode (Blade for Raft drives collections)"));
        arms.add(new Arm(RaftKvGoals.BLADE_PARALLEL, java, parallel, BladeMode.GCI,
            "Parallel (fixed eden, a quarter of the heap), the agent in its default mode"));
        return arms;
    }

    /**
     * Runs every (ratio, arm) search and writes the results.
     *
     * @return true: a cluster that did not start or a peer that ran out of memory is a result (in the table), not a
     *     failure; a footprint that cannot be measured throws
     */
    public static boolean run(SuiteOptions o, StopOnExit stop) throws Exception {
        RaftKvWorkload workload = RaftKvWorkload.heavy(o.quick());
        // the machine as it was at the start (its load, its floor), before any peer ran
        String header = SuiteReport.header(NAME, o.quick(), o.command(), System.getProperty("java.version")
            + " (runs the load and every peer but genzgc's)");
        Path java = ClusterSpec.currentJava();
        Optional<JavaInstallation> newer = JavaInstallation.find(o.jvmDir(), 21);
        long footprint = footprint(java, o, workload, stop);
        System.err.printf(Locale.ROOT, "suite: live footprint %,d MiB%n", footprint);
        List<MemoryPressureTable.Row> rows = new ArrayList<>();
        List<Double> ratios = o.quick() ? List.of(2.0, 1.25) : RATIOS;
        for (int i = 0; i < ratios.size(); i++) {
            double ratio = ratios.get(i);
            long heapMib = (long) Math.ceil(ratio * footprint);
            List<Arm> arms = new ArrayList<>(arms(java, newer, heapMib + "m", Math.max(1, heapMib / 4) + "m"));
            if (i % 2 == 1) {
                Collections.reverse(arms);
            }
            for (Arm arm : arms) {
                rows.add(search(o, arm, ratio, heapMib, workload, stop));
            }
        }
        header += String.format(Locale.ROOT, "- live footprint: %,d MiB per peer (heap after"
            + " `jcmd GC.run` in a G1 cluster with %s heaps, preloaded with %s)%n- genzgc: %s%n%n", footprint,
            FOOTPRINT_HEAP, workload.describe(), newer.map(j -> "JDK " + j.version() + " at " + j.java())
                .orElse("skipped, no JDK 21 or newer under " + o.jvmDir()));
        SuiteReport.write(o.out(), header + MemoryPressureTable.markdown(rows, 99, TimeUnit.MILLISECONDS.toMicros(
            TARGET_P99_MILLIS)) + '\n' + SuiteReport.armLines(arms(java, newer, "<heap>", "<heap/4>"))
            + footer(o, workload));
        return true;
    }

    /** One search: a fresh cluster of {@code arm}, preloaded, then windows at rising rates. */
    private static MemoryPressureTable.Row search(SuiteOptions o, Arm arm, double ratio, long heapMib,
                                                  RaftKvWorkload workload, StopOnExit stop) {
        String id = arm.name() + "-x" + SuiteTable.number(ratio);
        Path logDir = o.out().resolve("logs").resolve(id);
        System.err.printf(Locale.ROOT, "suite: %s: %,d MiB per peer, %s%n", id, heapMib, arm.jvmFlags());
        try (RaftKvCluster cluster = RaftKvCluster.start(arm, id, o.agentJar(), workload, logDir, stop)) {
            System.err.printf(Locale.ROOT, "suite: %s: preloaded in %.1f s%n", id, cluster.preload(workload));
            boolean[] first = {true};
            RateSearch.Result result = search(o).run(rate -> {
                Duration before = first[0] ? RaftKvScenario.warmup(o) : settle(o);
                first[0] = false;
                RaftKvLoad.Result load = new RaftKvLoad(cluster.group(), rate, workload).run(before, window(o),
                    o.out().resolve(id + "-" + Math.round(rate) + ".hlog"), () -> { }, () -> { });
                RaftKvRequests.Stretch all = load.requests().all();
                long p99 = load.latency().getTotalCount() == 0 ? Long.MAX_VALUE
                    : load.latency().getValueAtPercentile(99);
                System.err.printf(Locale.ROOT, "suite: %s @ %.0f/s: p99 %.2f ms, failed %d, timed out %d%n", id,
                    rate, p99 / 1000.0, all.failed(), all.timedOut());
                String exited = cluster.exited();
                if (exited != null) {
                    throw new IOException(exited);
                }
                return new RateSearch.Probe(rate, p99, all.failed() + all.timedOut());
            });
            return new MemoryPressureTable.Row(arm.name(), ratio, heapMib, Optional.of(result), result.aborted(),
                Optional.empty());
        } catch (Exception e) {
            System.err.println("suite: " + id + " did not run: " + e + " (logs in " + logDir + ")");
            return new MemoryPressureTable.Row(arm.name(), ratio, heapMib, Optional.empty(),
                Optional.of(e.toString().lines().findFirst().orElse("")), Optional.empty());
        } finally {
            stop.release();
        }
    }

    /** @return the store's live footprint per peer, MiB: see the class comment */
    static long footprint(Path java, SuiteOptions o, RaftKvWorkload workload, StopOnExit stop) throws Exception {
        List<String> heap = List.of("-Xms" + FOOTPRINT_HEAP, "-Xmx" + FOOTPRINT_HEAP);
        Arm arm = new Arm("footprint", java, BackendFlags.of(BackendFlags.G1, heap), BladeMode.NONE, "footprint");
        Path jcmd = java.resolveSibling("jcmd");
        try (RaftKvCluster cluster = RaftKvCluster.start(arm, "footprint", o.agentJar(), workload,
                o.out().resolve("logs").resolve("footprint"), stop)) {
            cluster.preload(workload);
            long most = -1;
            for (RaftKvCluster.Peer p : cluster.peers()) {
                Process jc = new ProcessBuilder(jcmd.toString(), Long.toString(p.process().pid()), "GC.run")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!jc.waitFor(120, TimeUnit.SECONDS) || jc.exitValue() != 0) {
                    jc.destroyForcibly();
                    throw new IOException(jcmd + " " + p.process().pid() + " GC.run failed");
                }
                most = Math.max(most, afterFullCollection(Files.readString(p.gcLog())));
            }
            if (most <= 0) {
                throw new IOException("no forced `Pause Full` line in the footprint cluster's GC logs");
            }
            return most;
        } finally {
            stop.release();
        }
    }

    /** @return the heap after the last forced full collection in {@code gcLog} ({@link #FULL}), MiB; -1 when none */
    static long afterFullCollection(String gcLog) {
        Matcher m = FULL.matcher(gcLog);
        long after = -1;
        while (m.find()) {
            after = Long.parseLong(m.group(1));
        }
        return after;
    }

    private static String footer(SuiteOptions o, RaftKvWorkload workload) {
        RateSearch s = search(o);
        return String.format(Locale.ROOT, "%nThree `KvServer` peers as in %s (Ratis, gRPC on loopback, linearizable"
            + " reads under the leader lease), store: %s; heap = ratio x live footprint (`-Xms` = `-Xmx`). Per ratio"
            + " and arm one fresh cluster (arms alternate which goes first), preloaded, and a rate search on it:"
            + " windows of open-loop load as raft-kv's (3 gets : 1 put, one shared client, %d request threads), the"
            + " first after %d s of warm-up, later ones after %d s, each %d s measured, from %.0f req/s up by x%.1f"
            + " until p99 misses %d ms or any call fails or times out, then bisected until within %.0f %%; at most %d"
            + " windows; floor %.0f, ceiling %.0f req/s. Windows run on the same peers (their heaps carry over). A"
            + " peer that did not start or exited (`-XX:+ExitOnOutOfMemoryError`) ends its search; the note says so."
            + " Raw: `<arm>-x<ratio>-<rate>.hlog`, `logs/<arm>-x<ratio>/<peer>/` (output, GC log), `logs/footprint/`.%n",
            RaftKvScenario.HEAVY_NAME, workload.describe(), RaftKvClients.REQUEST_THREADS,
            RaftKvScenario.warmup(o).toSeconds(), settle(o).toSeconds(), window(o).toSeconds(), s.startRate(),
            GROWTH, TARGET_P99_MILLIS, (RESOLUTION - 1) * 100, s.maxProbes(), MIN_RATE, s.maxRate());
    }
}
