package io.bladegc.api.grant;

/**
 * What coordination adds to the node's lead time (BLADE's T_schedule): the longest schedule time among the last
 * {@value #WINDOW} GC events of the last {@value #HORIZON_NANOS} ns, so that a node that had to queue behind another
 * asks that much earlier the next time instead of being overtaken by the JVM's own collection. A wait older than that
 * says little of the queue now, and a node that leaves its collections to the JVM while its lead is long (it asks for
 * none, so no event comes to replace the long one) would otherwise never ask again.
 *
 * <p>A schedule time is measured from the upcall until the grant, queueing and the load balancer's drain included,
 * less the node's preparation (a Raft leader's hand-off: {@link Preparation#leadNanos} is its lead).
 * When the JVM collected on its own while the node was still waiting, the node needed more than it waited: that event
 * counts twice the time waited. Every value is capped at {@code capNanos} (beyond the coordinator timeout the node
 * falls back to collecting on its own anyway).
 *
 * <p>A node that queued behind another also leaves that node's rhythm ({@link #leaveStep}): two nodes whose eden
 * fills at the same rate stay in step, and the recent waits alone keep them so (the queued one asks earlier by its
 * wait, which puts it right beside the other again). Its next request comes earlier by the longest full pause
 * measured (at least {@value #SHIFT_FLOOR_NANOS} ns) plus {@value #SHIFT_MARGIN_NANOS} ns, once: one young collection
 * of a fuller-than-needed eden moves it far enough from the other that even a full collection of either fits between.
 * The shift is at most a {@value #SHIFT_PERIOD_SHARE}th of the time between the node's last two requests: under load a
 * node collects every 0.4-0.7 s, and a shift of 350-850 ms made it collect a nearly empty eden exactly when queues
 * formed, adding collections, and queues, rather than spreading them (issue 35); repeated, the smaller shifts still
 * move it out of step.
 *
 * <p>Thread-safe: one writer (the coordination thread; {@link #requested} on the watcher thread, {@link #requestCame}
 * on the notification thread),
 * any number of readers ({@link #nanos()} on the watcher thread).
 */
final class ScheduleLead {
    static final int WINDOW = 8;
    /** How long a schedule time counts. */
    static final long HORIZON_NANOS = 10_000_000_000L;
    /** The least a node that queued behind another moves its next collection forward, besides the full pause. */
    static final long SHIFT_FLOOR_NANOS = 250_000_000L;
    /** Added to that shift for what the pauses do not cover: the drain, the release, the next grant. */
    static final long SHIFT_MARGIN_NANOS = 100_000_000L;
    /** The shift is at most the node's period between requests divided by this. */
    static final long SHIFT_PERIOD_SHARE = 4;

    private final long capNanos;
    private final RecentLongest recent;
    /** How much earlier the next request comes, once, to leave another node's rhythm (0: none pending). */
    private volatile long shiftNanos;
    /** When the last request came ({@link System#nanoTime()}), and the time between the last two (0: not yet known). */
    private volatile long lastRequestNanos = Long.MIN_VALUE;
    private volatile long periodNanos;

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
        record(scheduleNanos, System.nanoTime());
    }

    /** The JVM collected on its own after {@code waitedNanos} of waiting for a grant (the preparation left out). */
    void overtaken(long waitedNanos) {
        record(waitedNanos > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * waitedNanos, System.nanoTime());
    }

    /**
     * The node queued behind another; {@code longestFullPauseNanos}: the longest full pause measured here, or -1. The
     * shift is capped by the node's period between requests once two came ({@link #requested}).
     */
    void leaveStep(long longestFullPauseNanos) {
        long shift = Math.max(SHIFT_FLOOR_NANOS, longestFullPauseNanos) + SHIFT_MARGIN_NANOS;
        long period = periodNanos;
        shiftNanos = period > 0 ? Math.min(shift, period / SHIFT_PERIOD_SHARE) : shift;
    }

    /** A GC request came at {@code atNanos}: it measures the period between requests and spends a pending shift. */
    void requested(long atNanos) {
        long last = lastRequestNanos;
        if (last != Long.MIN_VALUE && atNanos > last) {
            periodNanos = atNanos - last;
        }
        lastRequestNanos = atNanos;
        requestCame();
    }

    /**
     * The request a shift was meant for has come, or the node collected without asking (it left the collection to the
     * JVM, or the JVM came first): the shift is spent.
     */
    void requestCame() {
        shiftNanos = 0;
    }

    /**
     * @return the lead time to add, nanoseconds: the longest of the recent events (the initial value before any, 0
     *     when all are older than {@value #HORIZON_NANOS} ns), and a pending shift
     */
    long nanos() {
        return nanos(System.nanoTime());
    }

    /** {@link #nanos()} at {@code nowNanos}. */
    long nanos(long nowNanos) {
        return recent.longestSince(nowNanos - HORIZON_NANOS) + shiftNanos;
    }

    /** Records a schedule time measured at {@code atNanos}; the oldest of the window drops out. */
    void record(long nanos, long atNanos) {
        recent.add(Math.max(0, Math.min(capNanos, nanos)), atNanos);
    }
}
