package io.bladegc.benchmarks.load;

import java.util.Map;
import java.util.TreeMap;

/**
 * The counters of one run's measured window. Mutable while the run lasts ({@link LoadTally} updates it under its
 * lock); a {@link LoadResult} holds a {@link #copy()} it never changes. Not thread-safe by itself.
 */
final class LoadCounts {
    long sent;
    long warmupSent;
    long ok;
    long shed;
    long retryAfterMissing;
    long retryAfterInvalid;
    long otherStatus;
    final Map<Integer, Long> otherStatuses = new TreeMap<>();
    long ioErrors;
    long timeouts;
    long unfinished;
    long clamped;
    long maxSendLagMicros;
    long maxQueued;
    long[] timelineMaxMicros = new long[0];
    long[] timelineShed = new long[0];

    /** @return an independent copy */
    LoadCounts copy() {
        LoadCounts c = new LoadCounts();
        c.sent = sent;
        c.warmupSent = warmupSent;
        c.ok = ok;
        c.shed = shed;
        c.retryAfterMissing = retryAfterMissing;
        c.retryAfterInvalid = retryAfterInvalid;
        c.otherStatus = otherStatus;
        c.otherStatuses.putAll(otherStatuses);
        c.ioErrors = ioErrors;
        c.timeouts = timeouts;
        c.unfinished = unfinished;
        c.clamped = clamped;
        c.maxSendLagMicros = maxSendLagMicros;
        c.maxQueued = maxQueued;
        c.timelineMaxMicros = timelineMaxMicros.clone();
        c.timelineShed = timelineShed.clone();
        return c;
    }
}
