package io.bladegc.benchmarks.load;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ObjLongConsumer;
import java.util.function.ToLongFunction;

/**
 * The counters of one run's measured window. Mutable while the run lasts ({@link LoadTally} updates it under its
 * lock); a {@link LoadResult} holds a {@link #copy()} it never changes. Not thread-safe by itself.
 */
final class LoadCounts {
    /**
     * One of the {@code long} counters, with its key in a result file ({@link LoadResultFile}).
     *
     * @param key its name, the field's
     * @param get reads it
     * @param set sets it
     */
    record Counter(String key, ToLongFunction<LoadCounts> get, ObjLongConsumer<LoadCounts> set) {
    }

    /** Every {@code long} counter: the one list that copying, saving and loading go by. */
    static final List<Counter> COUNTERS = List.of(
        new Counter("sent", c -> c.sent, (c, v) -> c.sent = v),
        new Counter("warmupSent", c -> c.warmupSent, (c, v) -> c.warmupSent = v),
        new Counter("ok", c -> c.ok, (c, v) -> c.ok = v),
        new Counter("shed", c -> c.shed, (c, v) -> c.shed = v),
        new Counter("retryAfterMissing", c -> c.retryAfterMissing, (c, v) -> c.retryAfterMissing = v),
        new Counter("retryAfterInvalid", c -> c.retryAfterInvalid, (c, v) -> c.retryAfterInvalid = v),
        new Counter("otherStatus", c -> c.otherStatus, (c, v) -> c.otherStatus = v),
        new Counter("ioErrors", c -> c.ioErrors, (c, v) -> c.ioErrors = v),
        new Counter("timeouts", c -> c.timeouts, (c, v) -> c.timeouts = v),
        new Counter("unfinished", c -> c.unfinished, (c, v) -> c.unfinished = v),
        new Counter("clamped", c -> c.clamped, (c, v) -> c.clamped = v),
        new Counter("maxSendLagMicros", c -> c.maxSendLagMicros, (c, v) -> c.maxSendLagMicros = v),
        new Counter("maxQueued", c -> c.maxQueued, (c, v) -> c.maxQueued = v));

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
        COUNTERS.forEach(k -> k.set().accept(c, k.get().applyAsLong(this)));
        c.otherStatuses.putAll(otherStatuses);
        c.timelineMaxMicros = timelineMaxMicros.clone();
        c.timelineShed = timelineShed.clone();
        return c;
    }
}
