package io.bladegc.api.internal;

/**
 * The most recent intervals during which the gate was closed with nothing in flight, in milliseconds of JVM uptime
 * (the clock of {@code GcInfo} start and end times), so a collection's notification can be checked against them.
 * Keeps the last {@value #CAPACITY}. Thread-safe.
 */
final class QuietWindows {
    static final int CAPACITY = 4096;
    private final long[] ring = new long[2 * CAPACITY];
    private long count;

    synchronized void add(long fromMs, long toMs) {
        int i = (int) (count % CAPACITY) * 2;
        ring[i] = fromMs;
        ring[i + 1] = toMs;
        count++;
    }

    /** @return {@code [from0, to0, from1, to1, ...]}, oldest first */
    synchronized long[] snapshot() {
        int n = (int) Math.min(count, CAPACITY);
        long[] out = new long[2 * n];
        long first = count - n;
        for (int k = 0; k < n; k++) {
            int i = (int) ((first + k) % CAPACITY) * 2;
            out[2 * k] = ring[i];
            out[2 * k + 1] = ring[i + 1];
        }
        return out;
    }
}
