package io.bladegc.api.slot;

import java.util.List;

/**
 * A snapshot of the ledger. Immutable.
 *
 * @param members    live members, sorted
 * @param collecting current grants, oldest first
 * @param queue      waiting requests, most urgent first
 * @param epoch      the last epoch handed out
 * @param grantsFrom no grant before this time ({@link Long#MIN_VALUE} when the ledger granted from the start)
 * @param policy     the policy
 */
public record SlotView(List<String> members, List<Grant> collecting, List<QueueEntry> queue, long epoch,
                       long grantsFrom, SlotPolicy policy) {
    public SlotView {
        members = List.copyOf(members);
        collecting = List.copyOf(collecting);
        queue = List.copyOf(queue);
    }
}
