package io.bladegc.api.internal;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The node's event counters. Thread-safe. */
final class NodeCounters {
    /** Upcalls issued. */
    final LongAdder requests = new LongAdder();
    /** Memory-reclaiming collections seen. */
    final LongAdder collections = new LongAdder();
    /** Collections Blade forced. */
    final LongAdder forced = new LongAdder();
    /** Of those, full collections (a young collection the JVM turned into a full one included). */
    final LongAdder forcedFull = new LongAdder();
    /**
     * Of those, young collections forced right after another in the same window: eden was left too small for the
     * watcher to see the next one coming ({@link HeapWatcher#nextDueUnseen}).
     */
    final LongAdder followUps = new LongAdder();
    /**
     * Young collections Blade left to the JVM because the lead they needed outlasted eden's fill
     * ({@link HeapWatcher.Prediction#leaveReason()}); the collections themselves are not counted as escapes.
     */
    final LongAdder leftToJvm = new LongAdder();
    /** Collections the JVM ran on its own while Blade meant to schedule them. */
    final LongAdder escaped = new LongAdder();
    /** Collections the JVM ran for a reason other than the heap's occupancy ({@link GcCause#OTHER}). */
    final LongAdder otherCause = new LongAdder();
    /** {@code startGc} calls that found the JVM had collected already. */
    final LongAdder alreadyCollected = new LongAdder();
    /** {@code startGc} calls the JVM refused. */
    final LongAdder refused = new LongAdder();
    /** Drains that hit the deadline with requests still in flight; those collections ran anyway. */
    final LongAdder drainTimeouts = new LongAdder();

    void putInto(Map<String, Object> m) {
        m.put("Requests", requests.sum());
        m.put("Collections", collections.sum());
        m.put("Forced", forced.sum());
        m.put("ForcedFull", forcedFull.sum());
        m.put("ForcedFollowUps", followUps.sum());
        m.put("LeftToJvm", leftToJvm.sum());
        m.put("Escaped", escaped.sum());
        m.put("OtherCause", otherCause.sum());
        m.put("AlreadyCollected", alreadyCollected.sum());
        m.put("Refused", refused.sum());
        m.put("DrainTimeouts", drainTimeouts.sum());
    }
}
