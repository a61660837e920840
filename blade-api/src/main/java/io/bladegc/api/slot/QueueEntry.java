package io.bladegc.api.slot;

/**
 * A node waiting for a slot. Immutable.
 *
 * @param node     who
 * @param gcId     for which GC request
 * @param urgentAt when it runs out of headroom (request time + lead time): the earliest is served first
 * @param fullPauseMillis the pause of the full collection the node offers to run in place of this one (0: none)
 */
public record QueueEntry(String node, long gcId, long urgentAt, long fullPauseMillis) {
    /** A request that offers no full collection. */
    public QueueEntry(String node, long gcId, long urgentAt) {
        this(node, gcId, urgentAt, 0);
    }
}
