package io.bladegc.api.slot;

import java.util.List;

/**
 * Everything a {@link SlotLedger} holds, for a snapshot: {@link SlotLedger#restore} makes a ledger that answers every
 * later call exactly as the one {@link SlotLedger#state()} was taken from. Immutable.
 *
 * @param members    live members with when each was last seen, least recently seen first
 * @param grants     current grants, oldest first
 * @param queue      waiting requests, most urgent first
 * @param epoch      the last epoch handed out
 * @param clock      the ledger's clock: the latest time it was told ({@link Long#MIN_VALUE} before any call)
 * @param grantsFrom no grant before this time
 */
public record LedgerState(List<Member> members, List<Grant> grants, List<QueueEntry> queue, long epoch, long clock,
                          long grantsFrom) {
    public LedgerState {
        members = List.copyOf(members);
        grants = List.copyOf(grants);
        queue = List.copyOf(queue);
    }

    /**
     * A live member.
     *
     * @param node     its id
     * @param lastSeen when it was last heard from (the ledger's clock)
     * @param dueAt    when it expects its JVM to collect (the ledger's clock), {@link Long#MAX_VALUE} when unknown
     * @param fullDueAt when it expects its JVM to run a full collection (the ledger's clock), {@link Long#MAX_VALUE}
     *                  when unknown
     * @param endedGcId its newest GC request that ended (cancelled, released, expired or replaced), 0 when none: the
     *                  ledger refuses to queue it or an older one again
     */
    public record Member(String node, long lastSeen, long dueAt, long fullDueAt, long endedGcId) {
        /** A member whose next collections are unknown and who has no ended request. */
        public Member(String node, long lastSeen) {
            this(node, lastSeen, Long.MAX_VALUE, Long.MAX_VALUE, 0);
        }
    }
}
