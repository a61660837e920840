package io.bladegc.api.grant;

import io.bladegc.api.Generation;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The last {@value #WINDOW} stop-the-world pauses of each generation in this JVM, as its node reports them
 * ({@link io.bladegc.api.BladeNode#addPauseListener}): the collections a {@link GrantHolder} forced and those the JVM
 * ran on its own, before Blade was armed too, so that a node that collects a few times a minute has a distribution
 * soon. A {@link Preparation} reads them to judge whether a pause is safely short, from its distribution rather than
 * from one estimate; older pauses age out as new ones come.
 *
 * <p>Thread-safe.
 */
public final class RecentPauses {
    /** How many pauses per generation are kept. */
    public static final int WINDOW = 16;

    private final long[][] pauses = new long[Generation.values().length][WINDOW];
    private final int[] seen = new int[Generation.values().length];

    /** Records one measured pause. */
    public synchronized void add(Generation generation, long nanos) {
        int g = generation.ordinal();
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
     *                 {@link #agedLongest}; 1 weighs all kept pauses alike
     * @return the kept pause of this generation at that fraction of their aged distribution (the shortest with at
     *     least that share of the kept pauses' weight at or under it, each weighed by {@code perNewer} to the power of
     *     the number of pauses that came after it), nanoseconds; -1 when none was measured
     */
    public synchronized long agedQuantile(Generation generation, double fraction, double perNewer) {
        int g = generation.ordinal();
        int n = Math.min(WINDOW, seen[g]);
        double[] weight = new double[n];
        Integer[] byLength = new Integer[n];
        double total = 0;
        for (int i = 0; i < n; i++) {
            weight[i] = Math.pow(perNewer, age(g, i));
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
     *     pauses that came after it (the newest at full weight), nanoseconds; -1 when none was measured. A one-off long
     *     pause (a start-up's promotion) is forgotten after a few, where {@link #longest} would keep it for
     *     {@value #WINDOW}; a JVM that keeps pausing long keeps its newest at full weight.
     */
    public synchronized long agedLongest(Generation generation, double perNewer) {
        int g = generation.ordinal();
        int n = Math.min(WINDOW, seen[g]);
        long max = -1;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, (long) (pauses[g][i] * Math.pow(perNewer, age(g, i))));
        }
        return max;
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
