package io.bladegc.benchmarks.suite.harness;

import java.util.ArrayList;
import java.util.List;

/**
 * A suite backend's JVM flags: collector and heap, then the flags every backend of every scenario shares
 * ({@link #COMMON}, as {@code http-cluster}'s arms have them). Stateless.
 */
public final class BackendFlags {
    /**
     * Metaspace sized so that class loading triggers no collection of its own ("Metadata GC Threshold", which Blade
     * does not predict), one GC thread of each kind (the machine has two cores for everything), heap touched at start.
     */
    public static final List<String> COMMON = common(1);
    /** Parallel with a fixed eden (no adaptive resizing), the collector Blade plans best. */
    public static final List<String> PARALLEL = List.of("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy");
    /** G1 with its defaults. */
    public static final List<String> G1 = List.of("-XX:+UseG1GC");
    /** Epsilon: no collection at all. */
    public static final List<String> EPSILON = List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC");

    private BackendFlags() {
    }

    /**
     * @param parallelGcThreads the collector's threads in a pause ({@code -XX:ParallelGCThreads}); the concurrent
     *                          collectors' background threads stay at one (G1's own choice on two cores)
     * @return {@link #COMMON} with {@code parallelGcThreads} in place of one
     */
    static List<String> common(int parallelGcThreads) {
        return List.of("-XX:MetaspaceSize=64m", "-XX:ParallelGCThreads=" + parallelGcThreads, "-XX:ConcGCThreads=1",
            "-XX:+AlwaysPreTouch");
    }

    /** @return generational ZGC on a JDK of this feature release (21 or newer; from 23 on the only ZGC) */
    public static List<String> generationalZgc(int feature) {
        return feature < 23 ? List.of("-XX:+UseZGC", "-XX:+ZGenerational") : List.of("-XX:+UseZGC");
    }

    /** @return {@code collector}, then {@code heap}, then {@link #COMMON} */
    public static List<String> of(List<String> collector, List<String> heap) {
        return of(collector, heap, 1);
    }

    /** @return {@code collector}, then {@code heap}, then {@link #common(int) common(parallelGcThreads)} */
    public static List<String> of(List<String> collector, List<String> heap, int parallelGcThreads) {
        List<String> out = new ArrayList<>(collector);
        out.addAll(heap);
        out.addAll(common(parallelGcThreads));
        return out;
    }
}
