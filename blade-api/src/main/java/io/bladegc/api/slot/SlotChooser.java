package io.bladegc.api.slot;

import java.util.Comparator;
import java.util.NavigableSet;
import java.util.function.Predicate;

/**
 * Who goes next: of the waiting requests, the one a free slot goes to, whether beyond K, and whether as a full
 * collection in place of the young one asked for. It only proposes: {@link SlotLedger} checks every proposal against
 * K, min-healthy and its leases, and grants. Stateless and pure (no clock of its own, no I/O).
 *
 * <ul>
 *   <li><b>within K</b> the most urgent request goes (the earliest {@link QueueEntry#urgentAt}, equal ones in the
 *       order they came), except that a request for a full collection that is not due itself lets the next one go
 *       while more members come due during its pause than may collect beyond K meanwhile: granted now, it would
 *       make one of them escape while queued behind its long pause;</li>
 *   <li><b>beyond K</b>, while fewer than the policy's K-when-due collect, only a request that is due (its JVM
 *       collects on its own within {@link SlotLedger#DUE_MARGIN_MILLIS}) and asks for a young collection, the shortest
 *       expected hold first, then the most urgent: a full collection beyond K would keep a second node out of rotation
 *       for its whole long pause, and a short one lets the next due request in sooner;</li>
 *   <li><b>a full collection offered in place</b> of the young one goes only within K, when nobody else waits and no
 *       other full collection runs, and {@link DueTimes#fullFits} says the others can wait it out.</li>
 * </ul>
 */
final class SlotChooser {
    /** Among due requests beyond K: the shortest expected hold, then the most urgent. */
    private static final Comparator<Waiting> SHORTEST_HOLD_FIRST =
        Comparator.comparingLong((Waiting w) -> w.ask().holdMillis()).thenComparing(Waiting.MOST_URGENT_FIRST);

    /**
     * The slots as they stand.
     *
     * @param collecting       how many grants run
     * @param allowance        K for the live members
     * @param allowanceWhenDue K for a due request
     * @param fullRoom         how many more may collect beyond K while a full collection offered now runs
     * @param fullRunning      whether a grant for a full collection (asked for or offered) runs
     * @param serving          how many live members serve requests (hold no grant)
     * @param holds            who holds a grant
     */
    record Slots(int collecting, int allowance, int allowanceWhenDue, long fullRoom, boolean fullRunning,
                 int serving, Predicate<String> holds) {
    }

    /**
     * A proposal.
     *
     * @param waiting the request to grant
     * @param beyondK whether it goes beyond K (a due request)
     * @param full    whether the grant runs the full collection the request offered in place of its young one
     */
    record Choice(Waiting waiting, boolean beyondK, boolean full) {
    }

    private SlotChooser() {
    }

    /**
     * @param queue the waiting requests, most urgent first ({@link Waiting#MOST_URGENT_FIRST}), not empty
     * @param slots the slots as they stand
     * @param due   when the members expect their JVMs to collect
     * @param now   the ledger's clock
     * @return the next grant to make, or {@code null} when none goes now
     */
    static Choice choose(NavigableSet<Waiting> queue, Slots slots, DueTimes due, long now) {
        if (slots.collecting() < slots.allowance()) {
            Waiting w = queue.stream().filter(q -> !waitsForDue(q, slots, due, now)).findFirst().orElse(null);
            if (w == null) {
                return null;
            }
            long offer = w.ask().fullOfferMillis();
            long pause = SlotLedger.saturatedAdd(offer, SlotLedger.FULL_MARGIN_MILLIS);
            long until = SlotLedger.saturatedAdd(now, pause);
            boolean full = offer > 0 && queue.size() == 1 && !slots.fullRunning() && due.fullFits(w.node(), now,
                until, SlotLedger.saturatedAdd(until, pause), slots.fullRoom(), slots.serving(), slots.holds());
            return new Choice(w, false, full);
        }
        if (slots.collecting() >= slots.allowanceWhenDue()) {
            return null;
        }
        long dueBy = SlotLedger.saturatedAdd(now, SlotLedger.DUE_MARGIN_MILLIS);
        Waiting best = null;
        for (Waiting w : queue) {
            if (w.urgentAt() > dueBy) {
                break; // most urgent first: none after this one is due
            }
            if (!w.ask().full() && (best == null || SHORTEST_HOLD_FIRST.compare(w, best) < 0)) {
                best = w;
            }
        }
        return best == null ? null : new Choice(best, true, false);
    }

    /**
     * @return whether {@code w}, a request for a full collection that is not due itself, lets others go first: more
     *     members come due during its expected pause (and {@value SlotLedger#FULL_MARGIN_MILLIS} ms) than may collect
     *     beyond K meanwhile, so granting it now would make one of them escape while it queues behind the long pause
     */
    private static boolean waitsForDue(Waiting w, Slots slots, DueTimes due, long now) {
        if (!w.ask().full() || w.urgentAt() <= SlotLedger.saturatedAdd(now, SlotLedger.DUE_MARGIN_MILLIS)) {
            return false;
        }
        long until = SlotLedger.saturatedAdd(now,
            SlotLedger.saturatedAdd(w.ask().holdMillis(), SlotLedger.FULL_MARGIN_MILLIS));
        return due.dueBefore(w.node(), now, until, slots.serving(), slots.holds()) > slots.fullRoom();
    }
}
