package io.bladegc.api;

/** A {@link GcHandler}'s answer to an upcall. */
public enum GcDecision {
    /** Collect at once, on a Blade thread, without draining. */
    COLLECT_NOW,
    /** The handler takes charge: it will call {@link BladeNode#startGc(long)} when the node is ready. */
    DEFER
}
