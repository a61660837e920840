package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotView;
import java.util.List;

/**
 * The cluster as the coordinator sees it at one instant. Immutable.
 *
 * @param view         the ledger: members, grants, queue, last epoch, policy
 * @param recentEvents the last {@link SlotService#RECENT_EVENTS} events, oldest first
 * @param waiting      how many acquire long-polls are open
 * @param now          the coordinator's clock (milliseconds)
 * @param replica      who this replica is and who leads (replicated mode), else empty
 * @param slotDemand   the slots the members' collections need ({@link SlotDemand}), as the answering replica measured
 * @param infeasible   whether that demand exceeds the slots
 * @param observing    whether the coordinator has stepped down and leaves every collection to the JVMs
 *                     ({@link Governor})
 */
public record ClusterSnapshot(SlotView view, List<SlotEvent> recentEvents, int waiting, long now, String replica,
                              double slotDemand, boolean infeasible, boolean observing) {
    public ClusterSnapshot {
        recentEvents = List.copyOf(recentEvents);
    }
}
