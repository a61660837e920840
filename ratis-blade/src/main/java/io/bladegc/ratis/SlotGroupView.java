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
 */
public record SlotGroupView(SlotView slots, Map<String, Long> lastCollected, long appliedIndex) {
    public SlotGroupView {
        lastCollected = Map.copyOf(lastCollected);
    }
}
