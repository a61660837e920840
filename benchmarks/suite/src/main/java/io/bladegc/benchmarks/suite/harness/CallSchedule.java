package io.bladegc.benchmarks.suite.harness;

import java.time.Duration;

/**
 * When an open-loop client issues its calls: call {@code i} is due at {@code start + i / rate}, whatever the earlier
 * calls did; those due from {@code start + warmup} until {@code measure} later are the measured window's. Immutable.
 *
 * @param start   when call 0 is due, {@link System#nanoTime()}
 * @param rate    calls per second, positive
 * @param warmup  calls before the window, not measured
 * @param measure the measured window
 */
public record CallSchedule(long start, double rate, Duration warmup, Duration measure) {
    /** @throws IllegalArgumentException when {@code rate} is not positive */
    public CallSchedule {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate must be positive: " + rate);
        }
    }

    /** @return when call {@code i} is due (computed from the start, so no rounding error adds up) */
    public long due(long i) {
        return start + (long) (i * 1e9 / rate);
    }

    /** @return when the measured window starts */
    public long windowStart() {
        return start + warmup.toNanos();
    }

    /** @return when it ends: the first call due then or later is not issued */
    public long end() {
        return windowStart() + measure.toNanos();
    }

    /** @return whether a call due at {@code due} is measured */
    public boolean measured(long due) {
        return due - windowStart() >= 0 && due - end() < 0;
    }
}
