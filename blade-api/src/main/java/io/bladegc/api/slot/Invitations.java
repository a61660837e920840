package io.bladegc.api.slot;

import java.util.HashMap;
import java.util.Map;

/**
 * Which members to invite to take their next young collection now, so that two members' collections do not meet.
 * <ul>
 *   <li><b>During another's full collection.</b> A full collection holds a slot for half a second or more (Parallel),
 *       and a member that comes due meanwhile either collects beyond K (two nodes out at once) or, with no room,
 *       escapes with requests inside; whoever keeps the ledger knows seconds ahead when a member's full collection
 *       will start (its heartbeats' {@code fullDueInMillis}), so it invites the members due during it to collect just
 *       before. A member is invited once another's full collection is due within {@value #HORIZON_MILLIS} ms and its
 *       own due time falls from {@value #BEFORE_MILLIS} ms before that start to the start plus the full collection's
 *       hold. The hold is the member's last full collection's, measured from grant to release, or the pause it
 *       offered with an acquire; a member whose full collection has no hold yet invites nobody.</li>
 *   <li><b>Two young collections too close.</b> A member whose young collection is due within
 *       {@value #HORIZON_MILLIS} ms, while another comes due during its hold (its last young collection's, from grant
 *       to release), would make that one collect beyond K or escape; the earlier of the two is invited to go now, a
 *       part of an eden early, and the later one collects when it comes due (of two due at the same moment, the one
 *       whose name sorts first goes).</li>
 * </ul>
 * Holds are stretched for the share the others carry while one is out (with n members, each of the n - 1 left fills
 * its eden n / (n - 1) times as fast). The member decides whether to accept ({@code BladeNode#collectEarly}: when its
 * eden is at least half full); an invitation it declines comes again with its next heartbeat while the two stay close.
 *
 * <p>Kept beside a {@link SlotLedger}, fed what its caller sees: the coordinator's slot service, and each replica of the
 * Raft slot group as it applies the log. What it learns is not in the ledger's state nor in a snapshot: a replica that
 * restarts, or a new coordinator, learns it anew from the members' next heartbeats and collections.
 * Not thread-safe: the ledger's one caller.
 */
public final class Invitations {
    /** How soon the collection that invites must be due: a heartbeat or two ahead. */
    public static final long HORIZON_MILLIS = 2_000;
    /** A member due this much before another's full collection starts would otherwise collect right before it. */
    public static final long BEFORE_MILLIS = 100;

    private static final class Member {
        long dueAt = Long.MAX_VALUE;
        long fullDueAt = Long.MAX_VALUE;
        long fullHold = -1;
        long youngHold = -1;
        /** When its grant running now began, -1 for none; {@link #grantedFull} whether that grant is a full one. */
        long grantedAt = -1;
        boolean grantedFull;
    }

    private final Map<String, Member> members = new HashMap<>();

    /**
     * {@code node} said at {@code now} when it expects its JVM to collect and to need a full collection (-1: unknown).
     */
    public void heartbeat(String node, long dueInMillis, long fullDueInMillis, long now) {
        Member m = member(node);
        m.dueAt = dueInMillis < 0 ? Long.MAX_VALUE : now + dueInMillis;
        m.fullDueAt = fullDueInMillis < 0 ? Long.MAX_VALUE : now + fullDueInMillis;
    }

    /** {@code node} offered or asked for a full collection expected to pause {@code pauseMillis} (0: unknown). */
    public void fullAsked(String node, long pauseMillis) {
        Member m = member(node);
        if (pauseMillis > 0 && m.fullHold < 0) {
            m.fullHold = pauseMillis;
        }
    }

    /** Takes one ledger event into account: a full collection's hold, a member's collection, a member gone. */
    public void event(SlotEvent e) {
        switch (e.type()) {
            case GRANTED -> {
                Member m = member(e.node());
                m.grantedAt = e.at();
                m.grantedFull = SlotLedger.FULL_DETAIL.equals(e.detail());
            }
            case RELEASED -> {
                Member m = member(e.node());
                if (m.grantedAt >= 0 && m.grantedFull) {
                    m.fullHold = e.at() - m.grantedAt;
                    m.fullDueAt = Long.MAX_VALUE;
                } else if (m.grantedAt >= 0) {
                    m.youngHold = e.at() - m.grantedAt;
                }
                m.grantedAt = -1;
                m.dueAt = Long.MAX_VALUE;
            }
            case CANCELLED, EXPIRED -> {
                Member m = member(e.node());
                m.grantedAt = -1;
                m.dueAt = Long.MAX_VALUE;
            }
            case LEFT, LOST -> members.remove(e.node());
            default -> {
            }
        }
    }

    /**
     * @param node the member whose heartbeat is answered
     * @param now  the ledger's clock
     * @return who invites {@code node} to collect now: the member whose full collection {@code node} would come due
     *     during, or the one that would come due during {@code node}'s own young collection; {@code null} for none
     */
    public String invitedBy(String node, long now) {
        Member m = members.get(node);
        if (m == null || m.dueAt == Long.MAX_VALUE || m.grantedAt >= 0 || members.size() < 2) {
            return null;
        }
        double stretch = members.size() / (members.size() - 1.0);
        for (Map.Entry<String, Member> e : members.entrySet()) {
            Member other = e.getValue();
            if (e.getKey().equals(node)) {
                continue;
            }
            if (other.fullHold > 0 && other.fullDueAt != Long.MAX_VALUE && other.fullDueAt - now <= HORIZON_MILLIS
                && !(other.grantedAt >= 0 && other.grantedFull)) {
                long start = Math.max(now, other.fullDueAt);
                if (m.dueAt >= start - BEFORE_MILLIS && m.dueAt <= start + (long) (other.fullHold * stretch)) {
                    return e.getKey();
                }
            }
            if (m.youngHold > 0 && m.dueAt - now <= HORIZON_MILLIS && other.dueAt != Long.MAX_VALUE
                && other.grantedAt < 0 && goesFirst(node, m.dueAt, e.getKey(), other.dueAt)
                && other.dueAt <= Math.max(now, m.dueAt) + (long) (m.youngHold * stretch)) {
                return e.getKey();
            }
        }
        return null;
    }

    /** @return whether {@code a}, due at {@code aAt}, collects before {@code b}, due at {@code bAt} */
    private static boolean goesFirst(String a, long aAt, String b, long bAt) {
        return aAt < bAt || aAt == bAt && a.compareTo(b) < 0;
    }

    private Member member(String node) {
        return members.computeIfAbsent(node, n -> new Member());
    }
}
