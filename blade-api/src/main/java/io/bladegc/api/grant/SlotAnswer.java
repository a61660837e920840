package io.bladegc.api.grant;

/**
 * The ledger's answer to {@link SlotPort#acquire}. Immutable.
 *
 * @param kind          granted, queued, cancelled (the ledger no longer has the request: ask again), or unscheduled
 *                      (no slot: the coordinator has stepped down, and the JVM is to collect on its own)
 * @param epoch         the grant's fencing token (0 unless granted)
 * @param leaseEndNanos when the lease ends on this JVM's {@link System#nanoTime()} clock (0 unless granted): the
 *                      ledger's "time left" counted from when the call was sent, so never later than the real end
 * @param position      the place in the queue from 1 (0 unless queued, or when the ledger did not say)
 * @param full          granted for a full collection in place of the young one asked for (the request offered it)
 */
public record SlotAnswer(Kind kind, long epoch, long leaseEndNanos, int position, boolean full) {
    /** What the ledger said. */
    public enum Kind { GRANTED, QUEUED, CANCELLED, UNSCHEDULED }

    /** @return a grant */
    public static SlotAnswer granted(long epoch, long leaseEndNanos) {
        return granted(epoch, leaseEndNanos, false);
    }

    /** @return a grant, for a full collection in place of the young one when {@code full} */
    public static SlotAnswer granted(long epoch, long leaseEndNanos, boolean full) {
        return new SlotAnswer(Kind.GRANTED, epoch, leaseEndNanos, 0, full);
    }

    /** @return a place in the queue */
    public static SlotAnswer queued(int position) {
        return new SlotAnswer(Kind.QUEUED, 0, 0, position, false);
    }

    /** @return "no slot for this collection: leave it to the JVM" (the coordinator has stepped down) */
    public static SlotAnswer unscheduled() {
        return new SlotAnswer(Kind.UNSCHEDULED, 0, 0, 0, false);
    }

    /** @return "the request is no longer queued" */
    public static SlotAnswer cancelled() {
        return new SlotAnswer(Kind.CANCELLED, 0, 0, 0, false);
    }
}
