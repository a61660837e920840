package io.bladegc.benchmarks.load;

import java.util.SplittableRandom;

/**
 * The intended send times of an open-loop run: evenly spaced at the rate, or a Poisson process at the rate
 * (exponential gaps from a seeded generator, so that a run can be repeated). Allocation-free.
 *
 * <p>Not thread-safe: the load generator's event loop owns it.
 */
final class Arrivals {
    /** How requests are spaced. */
    enum Kind {
        /** One request every {@code 1/rate}. */
        CONSTANT,
        /** Exponentially distributed gaps with mean {@code 1/rate}. */
        POISSON
    }

    private final Kind kind;
    private final double meanGapNanos;
    private final SplittableRandom random;
    private final long start;
    private double next;
    private long count;

    /**
     * @param kind  how requests are spaced
     * @param rate  requests per second, positive
     * @param start the first intended time, {@link System#nanoTime()}
     * @param seed  the Poisson process's seed
     */
    Arrivals(Kind kind, double rate, long start, long seed) {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate must be positive: " + rate);
        }
        this.kind = kind;
        this.meanGapNanos = 1e9 / rate;
        this.random = new SplittableRandom(seed);
        this.start = start;
        this.next = start;
    }

    /** @return the next intended send time, {@link System#nanoTime()} */
    long next() {
        long t = (long) next;
        count++;
        // constant: i * gap from the start, exact for any rate without accumulating rounding error
        next = kind == Kind.CONSTANT ? start + count * meanGapNanos
            : next - Math.log(1 - random.nextDouble()) * meanGapNanos;
        return t;
    }

    /** @return the time {@link #next()} will return, without taking it */
    long peek() {
        return (long) next;
    }

    /** @return how many times have been taken */
    long count() {
        return count;
    }
}
