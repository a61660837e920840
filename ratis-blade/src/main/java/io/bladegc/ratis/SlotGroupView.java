package io.bladegc.ratis;

import io.bladegc.api.slot.SlotView;
import java.util.Map;

/**
 * The replicated ledger as one replica has applied it. Immutable.
 *
 * @param slots         members, grants, queue, last epoch, policy
 * @param lastCollected for each peer that ever released a grant, when it last did (the ledger's clock, epoch
 *                      milliseconds of the leader that stamped the entry): a leader hands off to the most recent one
 * @param appliedIndex  the log index this replica had applied when it answered
 * @param clock         the answering replica's clock when it answered (epoch milliseconds; the leader's, which stamps
 *                      the entries, for a read sent to the leader): a grant's {@code deadline - clock} is the time its
 *                      lease has left, counted from no earlier than when the read was sent
 * @param dueAt         for each member that said so in its heartbeats, when it expects its JVM to collect (the
 *                      ledger's clock): a leader hands off to the one due last
 */
public record SlotGroupView(SlotView slots, Map<String, Long> lastCollected, long appliedIndex, long clock,
                            Map<String, Long> dueAt) {
    public SlotGroupView {
        lastCollected = Map.copyOf(lastCollected);
        dueAt = Map.copyOf(dueAt);
    }
}
