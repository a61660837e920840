package io.bladegc.api.grant;

import io.bladegc.api.Generation;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The last {@value #WINDOW} stop-the-world pauses of each generation in this JVM, as its node reports them
 * ({@link io.bladegc.api.BladeNode#addPauseListener}): the collections a {@link GrantHolder} forced and those the JVM
 * ran on its own, before Blade was armed too, so that a node that collects a few times a minute has a distribution
 * soon. A {@link Preparation} reads them to judge whether a pause is safely short, from its distribution rather than
 * from one estimate; older pauses age out as new ones come, and as time passes between them: a pause weighs half as
 * much for every {@value #HALF_LIFE_SECONDS} s it came before the newest one of its generation (the newest always
 * weighs fully, so a JVM that keeps pausing long is never taken for one that pauses short).
 *
 * <p>Thread-safe.
 */
public final class RecentPauses {
    /** How many pauses per generation are kept. */
    public static final int WINDOW = 16;
    /**
     * A pause's weight halves for every this many seconds between it and the newest pause of its generation. Counted
     * in newer pauses alone, raft-kv's preload (G1 young pauses of 72-299 ms in a peer's first 9 s, then 11-60 ms)
     * kept a leader's aged longest over the in-place bound until 104 s after them, and its five collections before
     * that were hand-offs of 73-205 ms (n1, blade-g1, repetition 2, 2026-11-28).
     */
    public static final int HALF_LIFE_SECONDS = 10;
    private static final double HALF_LIFE_NANOS = HALF_LIFE_SECONDS * 1e9;

    private final long[][] pauses = new long[Generation.values().length][WINDOW];
    /** When each pause was recorded, {@link System#nanoTime()}. */
    private final long[][] at = new long[Generation.values().length][WINDOW];
    private final int[] seen = new int[Generation.values().length];

    /** Records one measured pause, ended now. */
    public void add(Generation generation, long nanos) {
        add(generation, nanos, System.nanoTime());
    }

    /** Records one measured pause that ended at {@code atNanos} ({@link System#nanoTime()}), after those before it. */
    synchronized void add(Generation generation, long nanos, long atNanos) {
        int g = generation.ordinal();
        at[g][seen[g] % WINDOW] = atNanos;
        pauses[g][seen[g]++ % WINDOW] = nanos;
        if (seen[g] == 2 * WINDOW) {
            seen[g] = WINDOW; // keeps the count bounded; the ring position stays right
        }
    }

    /** @return how many pauses of this generation are kept, at most {@value #WINDOW} */
    public synchronized int count(Generation generation) {
        return Math.min(WINDOW, seen[generation.ordinal()]);
    }

    /**
     * @param fraction in (0, 1]: 0.5 the median, 1 the longest
     * @param perNewer in (0, 1]: the weight each newer pause of the generation takes off an older one, as in
     *                 {@link #agedLongest}
     * @return the kept pause of this generation at that fraction of their aged distribution (the shortest with at
     *     least that share of the kept pauses' weight at or under it, each weighed as {@link #agedLongest} weighs it),
     *     nanoseconds; -1 when none was measured
     */
    public synchronized long agedQuantile(Generation generation, double fraction, double perNewer) {
        int g = generation.ordinal();
        int n = Math.min(WINDOW, seen[g]);
        double[] weight = new double[n];
        Integer[] byLength = new Integer[n];
        double total = 0;
        for (int i = 0; i < n; i++) {
            weight[i] = weight(g, i, perNewer);
            total += weight[i];
            byLength[i] = i;
        }
        Arrays.sort(byLength, Comparator.comparingLong(i -> pauses[g][i]));
        double below = 0;
        for (int k = 0; k < n; k++) {
            below += weight[byLength[k]];
            if (below >= fraction * total * (1 - 1e-9) || k == n - 1) { // the tolerance: a sum of powers is not exact
                return pauses[g][byLength[k]];
            }
        }
        return -1;
    }

    /**
     * @param perNewer in (0, 1]: the weight each newer pause of the generation takes off an older one
     * @return the longest kept pause of this generation, each weighed by {@code perNewer} to the power of the number of
     *     pauses that came after it and halved for every {@value #HALF_LIFE_SECONDS} s it came before the newest (the
     *     newest at full weight), nanoseconds; -1 when none was measured. A one-off long pause (a start-up's
     *     promotion) is forgotten after a few, where {@link #longest} would keep it for {@value #WINDOW}; a JVM that
     *     keeps pausing long keeps its newest at full weight.
     */
    public synchronized long agedLongest(Generation generation, double perNewer) {
        int g = generation.ordinal();
        int n = Math.min(WINDOW, seen[g]);
        long max = -1;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, (long) (pauses[g][i] * weight(g, i, perNewer)));
        }
        return max;
    }

    /** @return the weight of the pause in slot {@code i} of generation {@code g}'s ring, by pauses and time after it */
    private double weight(int g, int i, double perNewer) {
        long newest = at[g][(seen[g] - 1) % WINDOW];
        return Math.pow(perNewer, age(g, i)) * Math.pow(0.5, Math.max(0, newest - at[g][i]) / HALF_LIFE_NANOS);
    }

    /** @return how many pauses of generation {@code g} came after the one in slot {@code i} of its ring */
    private int age(int g, int i) {
        return ((seen[g] - 1) % WINDOW - i + WINDOW) % WINDOW;
    }

    /** @return the longest kept pause of this generation, nanoseconds; -1 when none was measured */
    public synchronized long longest(Generation generation) {
        int g = generation.ordinal();
        int n = Math.min(WINDOW, seen[g]);
        long max = -1;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, pauses[g][i]);
        }
        return max;
    }
}
