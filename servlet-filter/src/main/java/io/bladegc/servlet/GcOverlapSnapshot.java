package io.bladegc.servlet;

import java.time.Duration;
import java.util.Objects;

/**
 * A copy of a {@link GcOverlapHistogram}'s counts at one moment, with the queries that attribute a latency tail to
 * GC. Immutable and thread-safe.
 *
 * <p>"Slower than X" is answered at bucket resolution: it counts the requests in the bucket that holds X and in all
 * longer buckets, so requests down to about X/2 may be included. Choose X on a power of two of microseconds
 * (e.g. 1.024 ms, 65.536 ms) for an exact boundary.
 */
public final class GcOverlapSnapshot {
    private final long[] requests;
    private final long[] overlapped;
    private final long[] overlapNanos;
    private final long[] overlapSizes;

    GcOverlapSnapshot(long[] requests, long[] overlapped, long[] overlapNanos, long[] overlapSizes) {
        this.requests = requests;
        this.overlapped = overlapped;
        this.overlapNanos = overlapNanos;
        this.overlapSizes = overlapSizes;
    }

    /** @return all requests recorded */
    public long requests() {
        return requestsSlowerThan(Duration.ZERO);
    }

    /** @return the requests that overlapped at least one GC pause */
    public long requestsWithGcOverlap() {
        return requestsWithGcOverlapSlowerThan(Duration.ZERO);
    }

    /** @return the pause time that overlapped requests, summed over requests */
    public Duration totalGcOverlap() {
        long sum = 0;
        for (long n : overlapNanos) {
            sum += n;
        }
        return Duration.ofNanos(sum);
    }

    /**
     * @param threshold the latency of interest
     * @return requests at least about as slow as {@code threshold} (see the class comment for the resolution)
     */
    public long requestsSlowerThan(Duration threshold) {
        return sumFrom(requests, threshold);
    }

    /**
     * @param threshold the latency of interest
     * @return of those, the requests that overlapped at least one GC pause
     */
    public long requestsWithGcOverlapSlowerThan(Duration threshold) {
        return sumFrom(overlapped, threshold);
    }

    /**
     * The attribution question: of the requests slower than {@code threshold}, what share had a GC pause in them?
     *
     * @param threshold the latency of interest
     * @return a share in {@code [0, 1]}; {@code 0} when no request was that slow
     */
    public double gcOverlapShare(Duration threshold) {
        long slow = requestsSlowerThan(threshold);
        return slow == 0 ? 0.0 : (double) requestsWithGcOverlapSlowerThan(threshold) / slow;
    }

    /**
     * @param bucket {@code 0} to {@link GcOverlapHistogram#BUCKETS} - 1
     * @return the shortest duration the bucket holds
     */
    public Duration bucketLowerBound(int bucket) {
        Objects.checkIndex(bucket, GcOverlapHistogram.BUCKETS);
        return Duration.ofNanos(GcOverlapHistogram.lowerBoundNanos(bucket));
    }

    /**
     * @param bucket a request-duration bucket
     * @return requests whose duration fell in it
     */
    public long requestsIn(int bucket) {
        return requests[Objects.checkIndex(bucket, GcOverlapHistogram.BUCKETS)];
    }

    /**
     * @param bucket a request-duration bucket
     * @return requests whose duration fell in it and that overlapped a GC pause
     */
    public long requestsWithGcOverlapIn(int bucket) {
        return overlapped[Objects.checkIndex(bucket, GcOverlapHistogram.BUCKETS)];
    }

    /**
     * @param bucket an overlap bucket (same scale as durations)
     * @return requests whose GC overlap fell in it: the distribution of overlap sizes
     */
    public long overlapsIn(int bucket) {
        return overlapSizes[Objects.checkIndex(bucket, GcOverlapHistogram.BUCKETS)];
    }

    private static long sumFrom(long[] counts, Duration threshold) {
        long nanos = threshold.isNegative() ? 0 : saturatedNanos(threshold);
        long sum = 0;
        for (int i = GcOverlapHistogram.bucket(nanos); i < counts.length; i++) {
            sum += counts[i];
        }
        return sum;
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        return "GcOverlapSnapshot[requests=" + requests() + ", withGcOverlap=" + requestsWithGcOverlap()
            + ", totalGcOverlap=" + totalGcOverlap() + "]";
    }
}
