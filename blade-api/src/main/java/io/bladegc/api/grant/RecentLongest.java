package io.bladegc.api.grant;

/**
 * The longest of the last few values recorded, or an initial value before the first: a lead time that covers the
 * recent worst case and forgets it once as many better ones followed. {@link ScheduleLead} keeps one for the waits
 * for a grant, a Raft peer's hand-off for its hand-offs.
 *
 * <p>Thread-safe: one writer ({@link #add}), any number of readers ({@link #longest()}).
 */
public final class RecentLongest {
    private final long[] recent;
    private int next;
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
}
