package io.bladegc.api;

import java.time.Duration;
import java.util.Objects;

/**
 * The upcall's argument: "a collection is coming". Immutable.
 *
 * @param id             monotonic identifier of this request within one JVM; pass it to {@link BladeNode#startGc(long)}
 * @param allocatedBytes bytes allocated in the young generation since the last collection
 * @param remainingBytes headroom: bytes that can still be allocated before the JVM collects on its own
 * @param estimatedPause the pause the pause model expects for this collection
 * @param generation     which generation the collection will reclaim
 */
public record GcRequest(long id, long allocatedBytes, long remainingBytes, Duration estimatedPause,
                        Generation generation) {
    public GcRequest {
        Objects.requireNonNull(estimatedPause, "estimatedPause");
        Objects.requireNonNull(generation, "generation");
    }
}
