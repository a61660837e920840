package io.bladegc.api;

/** What {@link BladeNode#startGc(long)} did. */
public enum GcOutcome {
    /** Blade collected for this request, confirmed by the JVM's GC notification. */
    COLLECTED,
    /** The JVM had already collected after the request was issued (on its own, or an earlier call): nothing done. */
    ALREADY_COLLECTED,
    /** Blade could not force a collection on this JVM (explicit collections disabled and no fallback); logged. */
    REFUSED,
    /**
     * The drain ended, or the collection could not begin, by the deadline its caller gave
     * ({@link BladeNode#drainAndCollect(long, Generation, long)}): a grant's lease would have ended before the
     * collection did (the JVM was paused or starved meanwhile): nothing collected by Blade, the gate open again.
     */
    TOO_LATE
}
