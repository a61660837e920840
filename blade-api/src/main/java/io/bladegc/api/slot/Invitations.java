package io.bladegc.api.slot;

import java.util.HashMap;
import java.util.Map;

/**
 * Which members to invite to take their next young collection now: those whose JVM would come due while another
 * member's full collection runs. A full collection holds a slot for half a second or more (Parallel), and a member that
 * comes due meanwhile either collects beyond K (two nodes out at once) or, with no room, escapes with requests inside;
 * whoever keeps the ledger knows seconds ahead when a member's full collection will start (its heartbeats'
 * {@code fullDueInMillis}), so it invites the members due during it, in the answer to their next heartbeat, to collect
 * just before. A member is invited once another's full collection is due within {@value #HORIZON_MILLIS} ms and its
 * own due time falls from {@value #BEFORE_MILLIS} ms before that start to the start plus the full collection's hold,
 * stretched for the share the others carry while one is out (with n members, each of the n - 1 left fills its eden
 * n / (n - 1) times as fast). The hold is the member's last full collection's, measured from grant to release, or the
 * pause it offered with an acquire; a member whose full collection has no hold yet invites nobody.
 *
 * <p>Kept beside a {@link SlotLedger}, fed what its caller sees: the coordinator's slot service, and each replica of the
 * Raft slot group as it applies the log. What it learns is not in the ledger's state nor in a snapshot: a replica that
 * restarts, or a new coordinator, learns it anew from the members' next heartbeats and full collections.
 * Not thread-safe: the ledger's one caller.
 */
public final class Invitations {
    /** How soon another member's full collection must be due for an invitation: a heartbeat or two ahead. */
    public static final long HORIZON_MILLIS = 2_000;
    /** A member due this much before another's full collection starts would otherwise collect right before it. */
    public static final long BEFORE_MILLIS = 100;

    private static final class Member {
        long dueAt = Long.MAX_VALUE;
        long fullDueAt = Long.MAX_VALUE;
        long fullHold = -1;
        long fullGrantedAt = -1;
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
                m.fullGrantedAt = SlotLedger.FULL_DETAIL.equals(e.detail()) ? e.at() : -1;
            }
            case RELEASED -> {
                Member m = member(e.node());
                if (m.fullGrantedAt >= 0) {
                    m.fullHold = e.at() - m.fullGrantedAt;
                    m.fullDueAt = Long.MAX_VALUE;
                }
                m.fullGrantedAt = -1;
                m.dueAt = Long.MAX_VALUE;
            }
            case CANCELLED, EXPIRED -> {
                Member m = member(e.node());
                m.fullGrantedAt = -1;
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
     * @return the member whose full collection {@code node} would come due during, or {@code null} for none
     */
    public String invitedBy(String node, long now) {
        Member m = members.get(node);
        if (m == null || m.dueAt == Long.MAX_VALUE || members.size() < 2) {
            return null;
        }
        double stretch = members.size() / (members.size() - 1.0);
        for (Map.Entry<String, Member> e : members.entrySet()) {
            Member other = e.getValue();
            if (e.getKey().equals(node) || other.fullHold <= 0 || other.fullDueAt == Long.MAX_VALUE
                || other.fullDueAt - now > HORIZON_MILLIS || other.fullGrantedAt >= 0) {
                continue;
            }
            long start = Math.max(now, other.fullDueAt);
            if (m.dueAt >= start - BEFORE_MILLIS && m.dueAt <= start + (long) (other.fullHold * stretch)) {
                return e.getKey();
            }
        }
        return null;
    }

    private Member member(String node) {
        return members.computeIfAbsent(node, n -> new Member());
    }
}
