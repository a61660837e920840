package io.bladegc.api.internal;

import java.util.Locale;

/**
 * Whether the old generation takes the next young collections' promotion, judged as this JVM's collector judges it.
 * Serial and Parallel turn a young collection into a full one when the old generation may not absorb the promotion;
 * they decide from their padded average promotion ({@link PromotionAverage}), which this keeps from the same samples
 * (and, as they do, not anew after a full collection). Parallel collects the whole heap right after a young
 * collection that leaves less than that free, so the next young collection is the full one when the room does not
 * hold its promotion (about the plain average), the padded average after it, and a survivor space. (Twice the padded
 * average, tried first, made every collection a full one on JDK 25: right after a full collection the room was already
 * short of it.) G1 fails an evacuation when its free regions cannot take a young collection's
 * promotion; it reclaims its old generation concurrently and in mixed collections, and a full collection there is a
 * stop-the-world compaction of the whole heap, so only one young collection's promotion and a survivor space are
 * kept in hand, from a decaying average that jumps up at once (promotion spikes are what make an evacuation fail),
 * started anew after a full collection.
 *
 * <p>Thread-safe: {@link #onYoung} and {@link #onOld} are called from the notification thread, the rest from any.
 */
final class PromotionRoom {
    /** Young collections' worth of promotion within which a full collection counts as soon. */
    static final int EARLY_YOUNGS = 5;

    private final boolean g1;
    private final PromotionAverage padded;
    /** On G1: what the next young collection is taken to promote, in bytes; 0 unknown. */
    private volatile long g1PerYoung;

    /**
     * @param g1     whether this JVM runs G1
     * @param padded the padded average Serial and Parallel keep (not used on G1)
     */
    PromotionRoom(boolean g1, PromotionAverage padded) {
        this.g1 = g1;
        this.padded = padded;
    }

    /** @param promoted what a young collection promoted, in bytes */
    void onYoung(long promoted) {
        if (g1) {
            long p = g1PerYoung;
            g1PerYoung = Math.max(promoted, (p * 3 + promoted) / 4);
        } else {
            padded.sample(promoted);
        }
    }

    /** An old collection: on G1 a new era, estimated from the young collections after it. */
    void onOld() {
        if (g1) {
            g1PerYoung = 0;
        }
    }

    /** @return what the next young collection is taken to promote, in bytes; 0 unknown */
    long perYoung() {
        return g1 ? g1PerYoung : padded.padded();
    }

    /**
     * @param oldFree  the old generation's free room, in bytes
     * @param survivor a survivor space's size, in bytes
     * @return why the JVM's next young collection would be a full one (or on G1 fail to evacuate), or {@code null}
     *     when the room takes it
     */
    String fullReason(long oldFree, long survivor) {
        long promoted = perYoung();
        if (g1) {
            return oldFree >= promoted + survivor ? null : String.format(Locale.ROOT, "the old generation has %d MiB"
                + " free, less than one young collection's promotion (%d MiB) and a survivor space (%d MiB)",
                oldFree >> 20, promoted >> 20, survivor >> 20);
        }
        // the next young collection promotes about the average; after it Parallel wants its padded average free
        long next = padded.average();
        return oldFree >= next + promoted + survivor ? null : String.format(Locale.ROOT, "the old generation has %d"
            + " MiB free, less than the next young collection's promotion (%d MiB, the JVM's average), the JVM's"
            + " padded average (%d MiB) and a survivor space (%d MiB)", oldFree >> 20, next >> 20, promoted >> 20,
            survivor >> 20);
    }

    /**
     * @return whether the room takes fewer than {@value #EARLY_YOUNGS} more young collections: a full collection is a
     *     few young ones away and may be run in place of one when that suits the cluster better (never on G1, where
     *     a full collection is never run early)
     */
    boolean fullSoon(long oldFree, long survivor) {
        return !g1 && oldFree < EARLY_YOUNGS * perYoung() + survivor;
    }

    /**
     * @param dueNanos    the time to the next young collection, {@link Long#MAX_VALUE} when unknown
     * @param oldRoom     the old generation's free room, less a survivor space
     * @param periodNanos the time between two young collections (a whole eden at the average rate)
     * @return when the node's full collection comes due: after the next young collection, one period for each further
     *     young collection whose promotion the room still takes with two young collections' worth to spare;
     *     {@link Long#MAX_VALUE} when unknown (no young collection yet; on G1 none since the last full one)
     */
    long fullDueNanos(long dueNanos, long oldRoom, double periodNanos) {
        return fullDueNanos(dueNanos, oldRoom, perYoung(), periodNanos);
    }

    /** {@link #fullDueNanos(long, long, double)} for a promotion per young collection of {@code promoted} bytes. */
    static long fullDueNanos(long dueNanos, long oldRoom, long promoted, double periodNanos) {
        if (promoted <= 0 || dueNanos == Long.MAX_VALUE || !(periodNanos > 0)) {
            return Long.MAX_VALUE;
        }
        long youngs = Math.max(0, oldRoom / promoted - 2);
        return (long) Math.min(Long.MAX_VALUE, dueNanos + youngs * periodNanos);
    }
}
