package io.bladegc.api.internal;

/**
 * The recent worst case of a delay Blade must plan for: a longer observation is taken at once, a shorter one lowers
 * the value by a sixteenth of itself, so one outlier is forgotten after some forty ordinary observations. Never above
 * its ceiling.
 *
 * <p>Thread-safe.
 */
final class DecayingMax {
    private final long ceiling;
    private volatile long value;

    /**
     * @param initial what {@link #value()} is before the first observation
     * @param ceiling the largest value it takes
     */
    DecayingMax(long initial, long ceiling) {
        this.ceiling = ceiling;
        this.value = Math.min(initial, ceiling);
    }

    /** @param observed one observation, in the unit of the value */
    synchronized void observe(long observed) {
        long v = value;
        value = Math.min(ceiling, Math.max(observed, v - (v >> 4)));
    }

    /** @return the recent worst case */
    long value() {
        return value;
    }
}
