package io.bladegc.api.slot;

import java.util.Comparator;

/**
 * A request in {@link SlotLedger}'s queue: the entry and its arrival order (equal urgencies go in the order they
 * came). Immutable.
 */
record Waiting(QueueEntry entry, long seq) {
    /** The queue's order: the earliest {@link QueueEntry#urgentAt} first, then arrival. */
    static final Comparator<Waiting> MOST_URGENT_FIRST =
        Comparator.comparingLong((Waiting w) -> w.entry().urgentAt()).thenComparingLong(Waiting::seq);

    String node() {
        return entry.node();
    }

    long gcId() {
        return entry.gcId();
    }

    Ask ask() {
        return entry.ask();
    }

    long urgentAt() {
        return entry.urgentAt();
    }
}
