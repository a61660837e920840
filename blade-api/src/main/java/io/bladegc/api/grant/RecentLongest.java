package io.bladegc.api.grant;

import java.util.Arrays;

/**
 * The longest of the last few values recorded, or an initial value before the first: a lead time that covers the
 * recent worst case and forgets it once as many better ones followed, or ({@link #longestSince}) once it is old:
 * {@link ScheduleLead} keeps one for the waits for a grant, a Raft peer's hand-off for its hand-offs.
 *
 * <p>Thread-safe: one writer ({@link #add}, {@link #quantile}), any number of readers ({@link #longest()} without a
 * lock, {@link #longestSince} with one).
 */
public final class RecentLongest {
    private final long[] recent;
    /** When each value was recorded, {@link System#nanoTime()}. */
    private final long[] recordedAt;
    private final long initial;
    private int next;
    private int count;
    private volatile long longest;

    /**
     * @param window  how many recent values count
     * @param initial what {@link #longest()} returns before the first value
     */
    public RecentLongest(int window, long initial) {
        this.recent = new long[window];
        this.recordedAt = new long[window];
        this.initial = initial;
        this.longest = initial;
    }

    /** Records a value now; the oldest of the window drops out. */
    public void add(long value) {
        add(value, System.nanoTime());
    }

    /** Records a value as of {@code atNanos}; the oldest of the window drops out. */
    synchronized void add(long value, long atNanos) {
        recent[next] = value;
        recordedAt[next] = atNanos;
        next = (next + 1) % recent.length;
        count = Math.min(recent.length, count + 1);
        long max = 0;
        for (long v : recent) {
            max = Math.max(max, v);
        }
        longest = max;
    }

    /** @return the longest of the recent values, the initial value before any */
    public long longest() {
        return longest;
    }

    /**
     * @param fromNanos the oldest time a value counts from, {@link System#nanoTime()}
     * @return the longest of the recent values recorded at or after {@code fromNanos}; the initial value before any
     *     was recorded, 0 when none is that recent
     */
    synchronized long longestSince(long fromNanos) {
        if (count == 0) {
            return initial;
        }
        long max = 0;
        for (int i = 0; i < count; i++) {
            if (recordedAt[i] - fromNanos >= 0) {
                max = Math.max(max, recent[i]);
            }
        }
        return max;
    }

    /**
     * @param fraction in (0, 1]: 0.5 the median, 1 the longest
     * @return the recent value at that fraction of their distribution, -1 before any; on the writer's thread
     */
    public long quantile(double fraction) {
        return quantile(recent, count, fraction); // the first count slots are the values until the window is full
    }

    /**
     * @param values   at least {@code n} values, not changed
     * @param n        how many of them count, from the first
     * @param fraction in (0, 1]
     * @return the smallest of the first {@code n} values with at least that share of them at or under it; -1 when
     *     {@code n} is 0
     */
    static long quantile(long[] values, int n, double fraction) {
        if (n == 0) {
            return -1;
        }
        long[] sorted = Arrays.copyOf(values, n);
        Arrays.sort(sorted);
        return sorted[Math.max(0, (int) Math.ceil(fraction * n) - 1)];
    }
}
