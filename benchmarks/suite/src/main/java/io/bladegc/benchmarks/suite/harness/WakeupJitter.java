package io.bladegc.benchmarks.suite.harness;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The machine's own latency floor: how late a thread wakes up from a 1 ms sleep ({@code parkNanos}) on this machine,
 * measured before a suite starts any process. Whatever the load generator and the servers do, their requests cannot
 * see less than this; on a virtual machine it is often milliseconds. Immutable.
 *
 * @param overshoot how much later than asked each wake-up came, microseconds
 */
public record WakeupJitter(Histogram overshoot) {
    private static final long SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Sleeps 1 ms at a time for {@code duration} and records each wake-up's overshoot. Blocks the calling thread.
     *
     * @param duration how long to measure
     * @return the record
     */
    public static WakeupJitter measure(Duration duration) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
        long end = System.nanoTime() + duration.toNanos();
        long before = System.nanoTime();
        while (before < end) {
            LockSupport.parkNanos(SLEEP_NANOS);
            long after = System.nanoTime();
            h.recordValue(Math.min(h.getHighestTrackableValue(), Math.max(0, after - before - SLEEP_NANOS) / 1000));
            before = after;
        }
        return new WakeupJitter(h);
    }

    /** @return one line: wake-ups, p99, p99.9 and max overshoot in milliseconds */
    public String summary() {
        return String.format(Locale.ROOT, "%d wake-ups from 1 ms sleeps, late by p99 %.2f ms, p99.9 %.2f ms, max"
                + " %.2f ms", overshoot.getTotalCount(), overshoot.getValueAtPercentile(99) / 1000.0,
            overshoot.getValueAtPercentile(99.9) / 1000.0, overshoot.getMaxValue() / 1000.0);
    }
}
