package io.bladegc.agent;

/**
 * The coordinator's answer to {@code acquire}: a grant, a place in the queue, or "your request is no longer queued"
 * ({@code CANCELLED}: it was cancelled or replaced while the call waited). Immutable.
 *
 * @param granted       whether the node holds a slot now
 * @param cancelled     whether the coordinator dropped the request while the call waited
 * @param epoch         the grant's fencing token (0 unless granted)
 * @param leaseEndNanos when the lease ends on this JVM's {@link System#nanoTime()} clock (0 unless granted); see
 *                      {@link CoordinatorClient#acquire}
 * @param position      the place in the queue, 1 = next (0 unless queued, or when the coordinator did not say)
 */
record AcquireAnswer(boolean granted, boolean cancelled, long epoch, long leaseEndNanos, int position) {

    static AcquireAnswer granted(long epoch, long leaseEndNanos) {
        return new AcquireAnswer(true, false, epoch, leaseEndNanos, 0);
    }

    static AcquireAnswer queued(int position) {
        return new AcquireAnswer(false, false, 0, 0, position);
    }

    static AcquireAnswer cancelledAnswer() {
        return new AcquireAnswer(false, true, 0, 0, 0);
    }
}
