package io.bladegc.api.internal;

import io.bladegc.api.Generation;

/**
 * Tells, once per JVM, that Parallel runs its collections as full ones one after another: each time the old
 * generation had less free room than a young collection would promote, so Parallel collected the whole heap instead
 * (HotSpot's cause then is {@value #CAUSE}). One such full collection now and then is how Parallel's old generation
 * comes due; {@value #IN_A_ROW} of them with at most one young collection between each is a heap whose young
 * generation leaves the old one no room, and from then on young collections pause as long as full ones, with Blade or
 * without (the load sweep of 2026-11-26: 282 of one backend's 286 pauses, with the young generation at its default
 * third of a 1 GiB heap and a 540 MiB live set). The remedy is in the flags, so the line names them.
 *
 * <p>Thread-safe.
 */
final class PromotionRoomNotice {
    /** Parallel's cause for a full collection it chose instead of a young one. */
    static final String CAUSE = "Ergonomics";
    /** Full collections of that cause in a row (at most one young collection between each) that make a notice. */
    static final int IN_A_ROW = 3;

    private int youngsSince = Integer.MAX_VALUE;
    private int inARow;
    private boolean told;

    /** @return the warning when {@code c} completes such a row for the first time, else {@code null} */
    synchronized String check(GcEvents.Collection c) {
        if (c.generation() == Generation.YOUNG) {
            youngsSince = youngsSince == Integer.MAX_VALUE ? youngsSince : youngsSince + 1;
            return null;
        }
        if (!CAUSE.equals(c.cause())) {
            inARow = 0;
            youngsSince = Integer.MAX_VALUE;
            return null;
        }
        inARow = youngsSince <= 1 ? inARow + 1 : 1;
        youngsSince = 0;
        if (told || inARow < IN_A_ROW) {
            return null;
        }
        told = true;
        return "Blade: Parallel ran " + inARow + " full collections in a row in place of young ones (cause " + CAUSE
            + ", the last " + (c.endMs() - c.startMs()) + " ms): the old generation has less free room than a young"
            + " collection promotes, so young collections now pause as long as full ones. A smaller young generation"
            + " (-Xmn) or a larger heap (-Xmx) gives the old generation that room. Said once.";
    }
}
