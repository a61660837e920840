package io.bladegc.servlet;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongConsumer;

/**
 * Per-request GC attribution: how long each request took and how much stop-the-world pause time overlapped it, in
 * power-of-two buckets, so that one can ask "of the requests slower than X, what share had a GC pause in them?"
 * (tail attribution in the manner of Cui et al., VEE '19). The Blade filters feed it through {@link FilterCore}; read
 * it with {@link #snapshot()}.
 *
 * <p>Buckets: bucket {@code 0} holds values below 2 µs, bucket {@code i >= 1} holds {@code [2^i, 2^(i+1))} µs, the
 * last bucket ({@value #BUCKETS} - 1, from about 36 minutes) is open-ended. Request durations and overlaps use the
 * same bucket scale. Resolution is therefore a factor of two; exact values are kept only as the sum of overlap time
 * per duration bucket.
 *
 * <p>Overlap is the growth of the node's cumulative pause counter ({@link io.bladegc.api.BladeNode#pauseNanos()})
 * between a request's entry and its exit. Its limit: the JVM reports a pause in a GC notification shortly
 * <em>after</em> the pause ends, so a pause that ends just before a request finishes may be counted for no request
 * or for a later one, and a pause that ended just before a request started may be counted for it. Pauses are
 * node-wide, so every request in flight during a pause is charged the whole pause it overlapped.
 *
 * <p>Thread-safe and allocation-free when recording: one atomic add per request, three more for a request that
 * overlapped a pause. Snapshots are not atomic across buckets; within a bucket they never show more overlapped
 * requests than requests.
 */
public final class GcOverlapHistogram {
    /** Number of buckets on each scale. */
    public static final int BUCKETS = 32;

    private static final int REQUESTS = 0;
    private static final int OVERLAPPED = BUCKETS;
    private static final int OVERLAP_NANOS = 2 * BUCKETS;
    private static final int OVERLAP_SIZES = 3 * BUCKETS;

    private final AtomicLongArray cells = new AtomicLongArray(4 * BUCKETS);
    private volatile LongConsumer overlapSink;

    /** An empty histogram. */
    public GcOverlapHistogram() {
    }

    /**
     * Records one finished request.
     *
     * @param durationNanos how long the request took
     * @param overlapNanos  pause time that overlapped it; {@code <= 0} means none
     */
    public void record(long durationNanos, long overlapNanos) {
        int d = bucket(durationNanos);
        cells.incrementAndGet(REQUESTS + d);
        if (overlapNanos > 0) {
            cells.incrementAndGet(OVERLAPPED + d);
            cells.addAndGet(OVERLAP_NANOS + d, overlapNanos);
            cells.incrementAndGet(OVERLAP_SIZES + bucket(overlapNanos));
            LongConsumer sink = overlapSink;
            if (sink != null) {
                sink.accept(overlapNanos);
            }
        }
    }

    /**
     * Sets a consumer told of every positive overlap, on the request's thread (used to feed a Micrometer timer).
     *
     * @param sink the consumer, or {@code null} for none; it must be fast and must not throw
     */
    void overlapSink(LongConsumer sink) {
        this.overlapSink = sink;
    }

    /** @return a copy of the counts, for queries */
    public GcOverlapSnapshot snapshot() {
        long[] requests = new long[BUCKETS];
        long[] overlapped = new long[BUCKETS];
        long[] overlapNanos = new long[BUCKETS];
        long[] overlapSizes = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            // overlapped before requests: record() adds to requests first, so overlapped <= requests here
            overlapped[i] = cells.get(OVERLAPPED + i);
            overlapNanos[i] = cells.get(OVERLAP_NANOS + i);
            overlapSizes[i] = cells.get(OVERLAP_SIZES + i);
            requests[i] = cells.get(REQUESTS + i);
        }
        return new GcOverlapSnapshot(requests, overlapped, overlapNanos, overlapSizes);
    }

    /**
     * @param nanos a duration in nanoseconds
     * @return its bucket
     */
    static int bucket(long nanos) {
        long micros = nanos / 1000;
        if (micros < 2) {
            return 0;
        }
        return Math.min(BUCKETS - 1, 63 - Long.numberOfLeadingZeros(micros));
    }

    /**
     * @param bucket a bucket index
     * @return the smallest duration it holds, in nanoseconds
     */
    static long lowerBoundNanos(int bucket) {
        return bucket == 0 ? 0 : (1L << bucket) * 1000;
    }
}
