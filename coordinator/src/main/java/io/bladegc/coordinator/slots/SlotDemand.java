package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotEvent;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How many slots the members' collections need: per member, the time it holds a slot (grant to release) over the
 * time between its collections (one release or cancel to the next: a cancel is a collection its JVM ran on its own,
 * or one it no longer needs), each an exponentially weighted average, summed over the members. A period still open
 * that has lasted longer than the average counts as the period: a member that stopped collecting (its load fell, or
 * went) stops needing slots at once, not at its next collection. When the sum exceeds
 * the slots (K), collections come due faster than K slots can serve them: however they are ordered, some wait until
 * their JVM collects on its own. The schedule is <em>infeasible</em> from the moment the demand exceeds K until it
 * falls below {@value #FEASIBLE_AGAIN} K (so that a demand near K does not flap).
 *
 * <p>Fed with the ledger's events in order, from the slot executor's thread only; not thread-safe.
 */
final class SlotDemand {
    /** Weight of the newest sample in each average. */
    static final double WEIGHT = 0.25;
    /** The share of K the demand must fall below before the schedule counts as feasible again. */
    static final double FEASIBLE_AGAIN = 0.9;

    private static final class Member {
        long grantedAt = -1;
        long lastEnd = -1;
        double hold = -1;
        double period = -1;
    }

    private final Map<String, Member> members = new HashMap<>();
    private boolean infeasible;

    /** Takes one ledger event into account. */
    void event(SlotEvent e) {
        switch (e.type()) {
            case GRANTED -> member(e.node()).grantedAt = e.at();
            case RELEASED -> {
                Member m = member(e.node());
                if (m.grantedAt >= 0) {
                    m.hold = average(m.hold, e.at() - m.grantedAt);
                }
                ended(m, e.at());
            }
            case CANCELLED -> ended(member(e.node()), e.at());
            case EXPIRED -> member(e.node()).grantedAt = -1; // an outlier: a holder that froze or died
            case LEFT, LOST -> members.remove(e.node());
            default -> {
            }
        }
    }

    /** {@code node}'s JVM collected at {@code at} without a grant (left to it): a period ends, no hold is measured. */
    void collected(String node, long at) {
        ended(member(node), at);
    }

    /**
     * @param now the coordinator's clock
     * @return the slots the members' collections need, from the members with a measured hold and period
     */
    double slots(long now) {
        double sum = 0;
        for (Member m : members.values()) {
            if (m.hold >= 0 && m.period > 0) {
                sum += m.hold / Math.max(m.period, m.lastEnd >= 0 ? now - m.lastEnd : 0);
            }
        }
        return sum;
    }

    /**
     * Judges the schedule against {@code allowance} slots at {@code now}.
     *
     * @return a line to log when the judgement changed (infeasible, or feasible again), else {@code null}
     */
    String judge(int allowance, long now) {
        double need = slots(now);
        if (!infeasible && need > allowance) {
            infeasible = true;
            return String.format(Locale.ROOT, "slot demand %.2f exceeds the %d slot(s): the members' collections come"
                + " due faster than the slots serve them, so some run outside a grant (allow more with --k or --k-due,"
                + " or add capacity)", need, allowance);
        }
        if (infeasible && need < FEASIBLE_AGAIN * allowance) {
            infeasible = false;
            return String.format(Locale.ROOT, "slot demand %.2f is back under the %d slot(s)", need, allowance);
        }
        return null;
    }

    /** @return whether the last {@link #judge} found the demand beyond the slots */
    boolean infeasible() {
        return infeasible;
    }

    private Member member(String node) {
        return members.computeIfAbsent(node, n -> new Member());
    }

    private static void ended(Member m, long at) {
        if (m.lastEnd >= 0 && at > m.lastEnd) {
            m.period = average(m.period, at - m.lastEnd);
        }
        m.lastEnd = at;
        m.grantedAt = -1;
    }

    private static double average(double old, double sample) {
        return old < 0 ? sample : old + WEIGHT * (sample - old);
    }
}
