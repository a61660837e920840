package io.bladegc.api.slot;

/**
 * A node waiting for a slot. Immutable.
 *
 * @param node     who
 * @param ask      what it asked for, with its newest lead time
 * @param urgentAt when it runs out of headroom (the time of its newest acquire + its lead time): the earliest is
 *                 served first
 */
public record QueueEntry(String node, Ask ask, long urgentAt) {
    /** @return the GC request it waits for */
    public long gcId() {
        return ask.gcId();
    }
}
