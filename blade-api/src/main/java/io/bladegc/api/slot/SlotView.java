package io.bladegc.api.slot;

import java.util.List;

/**
 * A snapshot of the ledger. Immutable.
 *
 * @param members    live members, sorted
 * @param collecting current grants, oldest first
 * @param queue      waiting requests, most urgent first
 * @param epoch      the last epoch handed out
 * @param policy     the policy
 */
public record SlotView(List<String> members, List<Grant> collecting, List<QueueEntry> queue, long epoch,
                       SlotPolicy policy) {
    public SlotView {
        members = List.copyOf(members);
        collecting = List.copyOf(collecting);
        queue = List.copyOf(queue);
    }
}
