package io.bladegc.api.grant;

/**
 * What coordination adds to the node's lead time (BLADE's T_schedule): the longest schedule time among the last
 * {@value #WINDOW} GC events, so that a node that had to queue behind another asks that much earlier the next time
 * instead of being overtaken by the JVM's own collection.
 *
 * <p>A schedule time is measured from the upcall until the grant, queueing and the load balancer's drain included,
 * less the node's preparation (a Raft leader's hand-off: {@link Preparation#leadNanos} is its lead).
 * When the JVM collected on its own while the node was still waiting, the node needed more than it waited: that event
 * counts twice the time waited. Every value is capped at {@code capNanos} (beyond the coordinator timeout the node
 * falls back to collecting on its own anyway).
 *
 * <p>Thread-safe: one writer (the coordination thread), any number of readers ({@link #nanos()} on the watcher
 * thread).
 */
final class ScheduleLead {
    static final int WINDOW = 8;

    private final long capNanos;
    private final RecentLongest recent;

    /**
     * @param capNanos     the most any one event may add
     * @param initialNanos the lead time to add before the first event was timed
     */
    ScheduleLead(long capNanos, long initialNanos) {
        this.capNanos = capNanos;
        this.recent = new RecentLongest(WINDOW, Math.max(0, Math.min(capNanos, initialNanos)));
    }

    /** A grant came {@code scheduleNanos} after the upcall (the preparation left out). */
    void granted(long scheduleNanos) {
        record(scheduleNanos);
    }

    /** The JVM collected on its own after {@code waitedNanos} of waiting for a grant (the preparation left out). */
    void overtaken(long waitedNanos) {
        record(waitedNanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * waitedNanos);
    }

    /** @return the lead time to add, nanoseconds: the longest of the recent events, the initial value before any */
    long nanos() {
        return recent.longest();
    }

    private void record(long nanos) {
        recent.add(Math.max(0, Math.min(capNanos, nanos)));
    }
}
