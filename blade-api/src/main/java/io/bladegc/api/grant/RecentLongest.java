package io.bladegc.api.grant;

import java.util.Arrays;

/**
 * The longest of the last few values recorded, or an initial value before the first: a lead time that covers the
 * recent worst case and forgets it once as many better ones followed: a Raft peer's hand-off keeps one for its
 * hand-offs.
 *
 * <p>Thread-safe: one writer ({@link #add}, {@link #quantile}), any number of readers
 * ({@link #longest()}).
 */
public final class RecentLongest {
    private final long[] recent;
    private int next;
    private int count;
    private volatile long longest;

    /**
     * @param window  how many recent values count
     * @param initial what {@link #longest()} returns before the first value
     */
    public RecentLongest(int window, long initial) {
        this.recent = new long[window];
        this.longest = initial;
    }

    /** Records a value; the oldest of the window drops out. */
    public void add(long value) {
        recent[next] = value;
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
