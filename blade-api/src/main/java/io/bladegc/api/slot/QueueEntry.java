package io.bladegc.api.slot;

/**
 * A node waiting for a slot. Immutable.
 *
 * @param node     who
 * @param gcId     for which GC request
 * @param urgentAt when it runs out of headroom (request time + lead time): the earliest is served first
 */
public record QueueEntry(String node, long gcId, long urgentAt) {
}
