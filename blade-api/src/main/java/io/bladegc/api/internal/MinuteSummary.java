package io.bladegc.api.internal;

import java.util.Arrays;
import java.util.Locale;

/**
 * What a node tells at INFO once it has settled: one line per minute with what Blade did in it (collections, how many
 * forced, left to the JVM, escaped, or run for another cause; the drains' 99th percentile; requests shed), where each collection has
 * its own line at DEBUG. The first {@value #EVENTS_AT_INFO} collections after start are also told at INFO, one line
 * each, so that a user sees Blade at work. No thread of its own: a minute's line is made by the first collection
 * after the minute is over, so a node that does not collect says nothing.
 *
 * <p>Thread-safe (synchronized; called once per collection and once per drain).
 */
final class MinuteSummary {
    /** Collection lines told at INFO after start; later ones go to DEBUG. */
    static final int EVENTS_AT_INFO = 5;
    static final long PERIOD_NANOS = 60_000_000_000L;
    /** Drains kept per minute for the percentile; beyond this many the rest are left out of it. */
    static final int MAX_DRAINS = 4096;

    private long periodStart;
    private long[] drains = new long[64];
    private int drainCount;
    private long collections;
    private long forced;
    private long left;
    private long escaped;
    private long otherCause;
    private long shedAtStart;
    private int eventsTold;

    /** @param nowNanos when the node started; its first minute begins */
    MinuteSummary(long nowNanos, long shed) {
        this.periodStart = nowNanos;
        this.shedAtStart = shed;
    }

    /** @return whether the next collection's own line goes to INFO (true for the first few after start) */
    synchronized boolean tellAtInfo() {
        return eventsTold++ < EVENTS_AT_INFO;
    }

    /** A drain took {@code nanos}. */
    synchronized void drained(long nanos) {
        if (drainCount == drains.length && drainCount < MAX_DRAINS) {
            drains = Arrays.copyOf(drains, Math.min(MAX_DRAINS, drainCount * 2));
        }
        if (drainCount < drains.length) {
            drains[drainCount++] = nanos;
        }
    }

    /**
     * A collection ran; makes the last minute's line when the minute is over.
     *
     * @param kind     forced by Blade, left to the JVM, escaped, run for another cause, or neither (the JVM's own
     *                 while not armed)
     * @param nowNanos now
     * @param shed     the gate's count of refused entries now
     * @return the line to log at INFO, or {@code null} while the minute lasts
     */
    synchronized String collected(Kind kind, long nowNanos, long shed) {
        collections++;
        switch (kind) {
            case FORCED -> forced++;
            case LEFT_TO_JVM -> left++;
            case ESCAPED -> escaped++;
            case OTHER_CAUSE -> otherCause++;
            case UNPLANNED -> { }
        }
        long elapsed = nowNanos - periodStart;
        if (elapsed < PERIOD_NANOS) {
            return null;
        }
        String line = String.format(Locale.ROOT, "Blade: in the last %d s: collections %d (%d forced, %s%d escaped, "
                + "%d for another cause), drain p99 %s, requests shed %d",
            Math.round(elapsed / 1e9), collections, forced, left == 0 ? "" : left + " left to the JVM, ", escaped,
            otherCause, drainP99(), shed - shedAtStart);
        periodStart = nowNanos;
        shedAtStart = shed;
        collections = forced = left = escaped = otherCause = 0;
        drainCount = 0;
        return line;
    }

    private String drainP99() {
        if (drainCount == 0) {
            return "- (no drain)";
        }
        long[] sorted = Arrays.copyOf(drains, drainCount);
        Arrays.sort(sorted);
        int index = (int) Math.ceil(0.99 * drainCount) - 1;
        return String.format(Locale.ROOT, "%.1f ms", sorted[Math.max(0, index)] / 1e6);
    }

    /** How a collection came about, for the minute's counts. */
    enum Kind { FORCED, LEFT_TO_JVM, ESCAPED, OTHER_CAUSE, UNPLANNED }
}
