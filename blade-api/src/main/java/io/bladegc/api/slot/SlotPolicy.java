package io.bladegc.api.slot;

/**
 * How many nodes may collect at once, and for how long. Immutable.
 *
 * @param maxCollecting         K: at most this many nodes collecting at once (default 1); used when
 *                              {@code maxCollectingFraction} is 0
 * @param maxCollectingFraction K as a share of live members, {@code floor(fraction * live)} but at least 1; 0 to use
 *                              {@code maxCollecting}
 * @param minHealthy            never grant when fewer than this many live members would be left not collecting
 *                              (default 1)
 * @param leaseMillis           a grant's lifetime; a holder that neither releases nor renews loses it at the deadline
 *                              (default 10 s)
 * @param memberTimeoutMillis   a member silent this long is lost: dropped from the live members and the queue (its
 *                              grant, if any, still runs to its deadline) (default 5 s)
 * @param maxCollectingWhenDue  K for a request that is due: when the most urgent request waits and its node's JVM is
 *                              expected to collect on its own within {@link SlotLedger#DUE_MARGIN_MILLIS} (so it would
 *                              collect in rotation, with requests inside), it may be granted while fewer than this
 *                              many collect, {@code minHealthy} still holding; 0 (the default) or at most K: never
 *                              beyond K
 */
public record SlotPolicy(int maxCollecting, double maxCollectingFraction, int minHealthy, long leaseMillis,
                         long memberTimeoutMillis, int maxCollectingWhenDue) {

    public SlotPolicy {
        if (maxCollecting < 1) {
            throw new IllegalArgumentException("maxCollecting must be at least 1: " + maxCollecting);
        }
        if (!(maxCollectingFraction >= 0 && maxCollectingFraction <= 1)) {
            throw new IllegalArgumentException("maxCollectingFraction must be in [0, 1]: " + maxCollectingFraction);
        }
        if (minHealthy < 0) {
            throw new IllegalArgumentException("minHealthy must not be negative: " + minHealthy);
        }
        if (leaseMillis < 1 || memberTimeoutMillis < 1) {
            throw new IllegalArgumentException("leaseMillis and memberTimeoutMillis must be positive");
        }
        if (maxCollectingWhenDue < 0) {
            throw new IllegalArgumentException("maxCollectingWhenDue must not be negative: " + maxCollectingWhenDue);
        }
    }

    /** A policy that never grants beyond K ({@code maxCollectingWhenDue} 0). */
    public SlotPolicy(int maxCollecting, double maxCollectingFraction, int minHealthy, long leaseMillis,
                      long memberTimeoutMillis) {
        this(maxCollecting, maxCollectingFraction, minHealthy, leaseMillis, memberTimeoutMillis, 0);
    }

    /** @return K=1, no fraction, minHealthy 1, lease 10 s, member timeout 5 s, never beyond K */
    public static SlotPolicy defaults() {
        return new SlotPolicy(1, 0, 1, 10_000, 5_000, 0);
    }

    /** @return how many may collect at once with {@code live} members */
    public int allowance(int live) {
        if (maxCollectingFraction > 0) {
            return Math.max(1, (int) Math.floor(maxCollectingFraction * live));
        }
        return maxCollecting;
    }

    /** @return how many may collect at once with {@code live} members when the most urgent request is due */
    public int allowanceWhenDue(int live) {
        return Math.max(allowance(live), maxCollectingWhenDue);
    }
}
