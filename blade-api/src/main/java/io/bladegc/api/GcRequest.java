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
 * @param fullInstead    for a young collection while the old generation fills up (a full collection is due within a
 *                       few young ones): the pause a full collection in its place is expected to take. A handler
 *                       that can find a moment when this node's full collection disturbs nobody (a coordinator that
 *                       knows when the other nodes collect) may run it now with
 *                       {@link BladeNode#drainAndCollect(long, Generation)}, so that it does not come due at a worse
 *                       time. {@link Duration#ZERO} otherwise.
 */
public record GcRequest(long id, long allocatedBytes, long remainingBytes, Duration estimatedPause,
                        Generation generation, Duration fullInstead) {
    public GcRequest {
        Objects.requireNonNull(estimatedPause, "estimatedPause");
        Objects.requireNonNull(generation, "generation");
        Objects.requireNonNull(fullInstead, "fullInstead");
    }

    /** A request that offers no full collection in its place. */
    public GcRequest(long id, long allocatedBytes, long remainingBytes, Duration estimatedPause, Generation generation) {
        this(id, allocatedBytes, remainingBytes, estimatedPause, generation, Duration.ZERO);
    }
}
