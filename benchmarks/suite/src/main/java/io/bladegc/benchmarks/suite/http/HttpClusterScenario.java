package io.bladegc.benchmarks.suite.http;

import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.EpsilonHeap;
import io.bladegc.benchmarks.suite.harness.JavaInstallation;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code http-cluster} scenario: {@link ClusterDemo#BACKENDS} demo backends behind HAProxy (retry-on 503,
 * redispatch), a {@link Workload} on a {@link #HEAP} heap, one arm per collector or Blade mode. Stateless.
 *
 * <p>The workload is heavier than the README demo's: a live set of small objects (what a collector's marking and
 * copying cost follows) with churn, so that on this machine's two cores the stop-the-world collectors pause for
 * up to a second or more and G1 for tens of milliseconds, as services with a few hundred megabytes of cache do.
 * After the arms, the capacity search: for {@link #CAPACITY_ARMS} the highest rate with p99.9 under
 * {@link #CAPACITY_TARGET_MICROS} ({@link #capacitySearch}).
 *
 * <p>Arms: {@code g1}, {@code parallel}, {@code serial} (no Blade); {@code blade-parallel}, {@code blade-g1}
 * (coordinated); {@code gci-parallel} (filter and agent alone, HAProxy retrying the 503s); {@code epsilon} (no
 * collection at all: the floor, with a heap sized for the whole run); and on a JDK 21 or newer {@code genzgc} and
 * {@code shenandoah}, on the same heap and on twice it ({@code genzgc-x2}, {@code shenandoah-x2}).
 */
public final class HttpClusterScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "http-cluster";
    /**
     * Heap of every backend but Epsilon's: 1 GiB, young generation sized by each collector (G1 and the concurrent
     * ones adapt it; Serial takes its default third of the heap; the Parallel arms fix it at 96 MiB, see
     * {@link #PARALLEL}).
     */
    public static final List<String> HEAP = SuiteOptions.heapFlags(SuiteOptions.DEFAULT_HEAP);
    /**
     * The Parallel arms' collector flags, the demo's ({@link ClusterDemo#PARALLEL}): a fixed 96 MiB young generation.
     * With the default third of the heap (341 MiB) the old generation's free room after the 540 MiB live set was
     * smaller than what one young collection promotes under load, so Parallel ran nearly every collection as a full
     * one ("Pause Full (Ergonomics)": 282 of 286 pauses of one Blade backend in the load sweep of 2026-11-26, 162 s
     * of pause), with Blade or without.
     */
    public static final List<String> PARALLEL = ClusterDemo.PARALLEL;
    /**
     * Heap a backend needs besides the per-request garbage: the live set as laid out in the heap (64-byte arrays
     * take 80 bytes and a reference: 1.4 times their payload, rounded up) plus Jetty, classes, start-up.
     */
    public static final int EPSILON_BASE_MIB = 128 + 384 * 14 / 10;

    /**
     * The capacity search's target, p99.9 at the client: 10 ms. The issue asks for 5 ms, but on this machine's two
     * shared cores even Epsilon (no collection at all) does not get under 5 ms at 600 req/s (its p99.9 is 7-8 ms,
     * and an idle thread's wake-up from a 1 ms sleep alone is late by up to about 5 ms), so a 5 ms search finds
     * nothing for any arm.
     */
    public static final long CAPACITY_TARGET_MICROS = 10_000;
    /** The percentile the capacity search is held to. */
    public static final double CAPACITY_PERCENTILE = 99.9;
    /**
     * The arms whose capacity is searched: G1 and Blade on a stop-the-world collector (Epsilon is left out: its heap
     * is sized for one window at the scenario's rate).
     */
    public static final List<String> CAPACITY_ARMS = List.of("g1", "blade-parallel");

    private HttpClusterScenario() {
    }

    /**
     * @param java      the default {@code java} (the one this JVM runs on)
     * @param newer     a JDK 21 or newer, for generational ZGC and Shenandoah; empty to skip those arms
     * @param heapSize  every arm's heap but Epsilon's and the concurrent collectors' second arms, as {@code -Xmx}
     *                  takes it ({@link SuiteOptions#DEFAULT_HEAP}, or {@link SuiteOptions#heap()})
     * @param gcThreads every arm's {@code -XX:ParallelGCThreads} ({@link SuiteOptions#gcThreads()})
     * @param workload  what each request does (sizes Epsilon's heap)
     * @param rate      requests per second through HAProxy
     * @param runTime   warm-up plus measured window of one arm (sizes Epsilon's heap)
     * @param notes     receives a line for each arm skipped and for Epsilon's heap
     * @return the arms, in the order the first repetition runs them; on the newer JDK generational ZGC and Shenandoah
     *     each twice: on {@code heapSize} and on twice that ({@code genzgc-x2}, {@code shenandoah-x2}), the headroom
     *     their users give them
     */
    public static List<Arm> arms(Path java, Optional<JavaInstallation> newer, String heapSize, int gcThreads,
                                 Workload workload, double rate, Duration runTime, List<String> notes) {
        List<String> heap = SuiteOptions.heapFlags(heapSize);
        List<Arm> arms = new ArrayList<>();
        arms.add(new Arm("g1", java, BackendFlags.of(BackendFlags.G1, heap, gcThreads), BladeMode.NONE,
            "G1, no Blade"));
        arms.add(new Arm("parallel", java, BackendFlags.of(PARALLEL, heap, gcThreads), BladeMode.NONE,
            "Parallel (fixed 96 MiB young generation), no Blade"));
        arms.add(new Arm("serial", java, BackendFlags.of(List.of("-XX:+UseSerialGC"), heap, gcThreads),
            BladeMode.NONE, "Serial, no Blade"));
        arms.add(new Arm("blade-parallel", java, BackendFlags.of(PARALLEL, heap, gcThreads),
            BladeMode.COORDINATED, "Parallel (fixed 96 MiB young generation), filter + agent coordinated, coordinator"
                + " draining in HAProxy"));
        arms.add(new Arm("blade-g1", java, BackendFlags.of(BackendFlags.G1, heap, gcThreads),
            BladeMode.COORDINATED, "G1, filter + agent coordinated, coordinator draining in HAProxy"));
        arms.add(new Arm("gci-parallel", java, BackendFlags.of(PARALLEL, heap, gcThreads), BladeMode.GCI,
            "Parallel (fixed 96 MiB young generation), filter + agent single-node, no coordinator; HAProxy retries"
                + " the 503s"));
        EpsilonHeap epsilon = epsilonHeap(workload, rate / ClusterDemo.BACKENDS, runTime);
        arms.add(new Arm("epsilon", java, BackendFlags.of(BackendFlags.EPSILON, List.of("-Xms" + epsilon.mib() + "m",
            "-Xmx" + epsilon.mib() + "m"), gcThreads), BladeMode.NONE, "Epsilon (no collection): the floor"));
        notes.add(epsilon.note());
        if (newer.isPresent()) {
            JavaInstallation jdk = newer.get();
            for (String size : List.of(heapSize, twice(heapSize))) {
                String suffix = size.equals(heapSize) ? "" : "-x2";
                String label = ", JDK " + jdk.version() + ", " + size + " heap" + (suffix.isEmpty() ? ""
                    : " (twice the other arms')") + ", no Blade";
                arms.add(new Arm("genzgc" + suffix, jdk.java(), BackendFlags.of(
                    BackendFlags.generationalZgc(jdk.feature()), SuiteOptions.heapFlags(size), gcThreads),
                    BladeMode.NONE, "generational ZGC" + label));
                arms.add(new Arm("shenandoah" + suffix, jdk.java(), BackendFlags.of(List.of("-XX:+UseShenandoahGC"),
                    SuiteOptions.heapFlags(size), gcThreads), BladeMode.NONE, "Shenandoah" + label));
            }
        } else {
            notes.add("genzgc, shenandoah, genzgc-x2, shenandoah-x2: skipped, no JDK 21 or newer found");
        }
        return arms;
    }

    /**
     * @param o the command line
     * @return the capacity search: from {@code --rate} up by x1.5 (down likewise when it already misses), bisected
     *     to within 10 %, any client-visible error fails a window; at most 2 windows quick, 7 full; 50 to 20,000 req/s
     */
    static RateSearch capacitySearch(SuiteOptions o) {
        return new RateSearch(CAPACITY_TARGET_MICROS, 0, Math.max(o.rate(), 50), 1.5, 50, Math.max(o.rate(), 20_000),
            o.quick() ? 2 : 7, 1.1);
    }

    /** @return load before each capacity window but a cluster's first: quick 1 s, full 5 s */
    static Duration capacitySettle(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 1 : 5);
    }

    /** @return each measured capacity window: quick 3 s, full 20 s */
    static Duration capacityWindow(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 3 : 20);
    }

    /** @return twice a heap size as {@code -Xmx} takes it: {@code 1g} -> {@code 2g}, {@code 768m} -> {@code 1536m} */
    static String twice(String size) {
        int unit = size.length() - 1;
        return Long.parseLong(size.substring(0, unit)) * 2 + size.substring(unit);
    }

    /**
     * @param workload       what each request does
     * @param ratePerBackend requests per second one backend serves
     * @param runTime        warm-up plus measured window
     * @return Epsilon's heap for one backend: {@link #EPSILON_BASE_MIB}, the workload's garbage and churn per request
     */
    static EpsilonHeap epsilonHeap(Workload workload, double ratePerBackend, Duration runTime) {
        return new EpsilonHeap(EPSILON_BASE_MIB, ratePerBackend, workload.kibPerRequest(), runTime);
    }
}
