package io.bladegc.api.internal;

import java.util.Set;

/**
 * Why a collection ran, from the cause string HotSpot puts in its GC notification, as far as Blade's prediction is
 * concerned. Only a young collection that began because eden was full ({@link #EDEN_FULL}) shows where this JVM
 * starts collecting; a collection the JVM started for another reason ({@link #OTHER}: Metaspace's threshold, a
 * JNI critical section's delayed collection, a heap dump or inspection, a JVMTI or WhiteBox request, a humongous
 * allocation, G1's periodic collections) happened at whatever eden held, so it would teach the watcher
 * a trigger far below the real one, and Blade never meant to schedule it, so it is not an escape either. Causes not
 * known here count as {@link #HEAP}: as before, the heap's own need.
 */
enum GcCause {
    /** A young collection because eden was full: Serial's and Parallel's "Allocation Failure", G1's evacuation pause. */
    EDEN_FULL,
    /**
     * The heap needed it in another way: Parallel's "Ergonomics" full collection, a G1 compaction, G1's "preventive"
     * young collection (free regions ran low: it also comes while Blade fills eden to force one), any cause not known.
     */
    HEAP,
    /** Someone asked for it: {@code System.gc()} or {@code jcmd GC.run}. */
    EXPLICIT,
    /** Not the heap's occupancy, and not predictable from it: see the class comment. */
    OTHER;

    private static final Set<String> EDEN = Set.of("Allocation Failure", "G1 Evacuation Pause");
    private static final Set<String> ASKED = Set.of("System.gc()", "Diagnostic Command");
    private static final Set<String> NOT_THE_HEAP = Set.of(
        "Metadata GC Threshold", "Metadata GC Clear Soft References", "GCLocker Initiated GC",
        "Heap Inspection Initiated GC", "Heap Dump Initiated GC", "JvmtiEnv ForceGarbageCollection",
        "WhiteBox Initiated Young GC", "WhiteBox Initiated Full GC", "WhiteBox Initiated Concurrent Mark",
        "Codecache GC Threshold", "Codecache GC Aggressive", "G1 Humongous Allocation", "G1 Periodic Collection");

    /** @return the kind of {@code cause} (a notification's {@code GcInfo} cause; null counts as {@link #HEAP}) */
    static GcCause of(String cause) {
        if (cause == null) {
            return HEAP;
        }
        if (EDEN.contains(cause)) {
            return EDEN_FULL;
        }
        if (ASKED.contains(cause)) {
            return EXPLICIT;
        }
        return NOT_THE_HEAP.contains(cause) ? OTHER : HEAP;
    }
}
