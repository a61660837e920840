package io.bladegc.api;

import java.time.Duration;

/**
 * The timeline of one drained collection (BLADE's T_trailers and T_gc). Immutable.
 *
 * @param outcome  what {@link BladeNode#startGc(long)} did
 * @param trailers from closing the gate until no request was in flight (or the drain timeout)
 * @param gc       from then until the collection was confirmed
 * @param drained  whether the trailers finished before the drain timeout
 */
public record DrainedCollection(GcOutcome outcome, Duration trailers, Duration gc, boolean drained) {
}
