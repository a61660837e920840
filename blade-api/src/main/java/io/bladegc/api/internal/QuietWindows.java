package io.bladegc.api.internal;

import java.util.Arrays;

/**
 * The most recent intervals during which the gate was closed with nothing in flight, recorded as every collector
 * bean's collection count when the interval began and when it ended. Collection {@code id} of bean {@code b} ran
 * inside the interval exactly when {@code from[b] < id <= to[b]}: collection counts change only inside a
 * stop-the-world pause, so no clock needs to be matched against the JVM's GC timestamps. Keeps the last
 * {@value #CAPACITY}. Thread-safe.
 */
final class QuietWindows {
    static final int CAPACITY = 1024;
    private final long[][] ring = new long[CAPACITY][];
    private long count;

    synchronized void add(long[] from, long[] to) {
        long[] w = Arrays.copyOf(from, from.length + to.length);
        System.arraycopy(to, 0, w, from.length, to.length);
        ring[(int) (count % CAPACITY)] = w;
        count++;
    }

    /**
     * @return the windows oldest first, flattened: for each, the {@code n} bean counts at its start followed by the
     *     {@code n} counts at its end, in the order of {@link HeapLayout#gcBeans()}
     */
    synchronized long[] snapshot() {
        int n = (int) Math.min(count, CAPACITY);
        long first = count - n;
        return java.util.stream.LongStream.range(first, count)
            .mapToObj(i -> ring[(int) (i % CAPACITY)])
            .flatMapToLong(Arrays::stream)
            .toArray();
    }
}
