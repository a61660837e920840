package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotLedger;
import io.bladegc.api.slot.SlotView;
import java.util.List;

/**
 * The slot ledger as the {@link SlotService} uses it: {@link SlotLedger}'s calls. Two kinds: {@link LocalLedger} (a
 * {@code SlotLedger} in this process, standalone mode) and {@link ReplicatedLedger} (the ledger replicated among
 * coordinator replicas through Raft; its writes ignore {@code now} because the Raft leader stamps time into the log).
 *
 * <p>Not thread-safe: the service calls it from its {@link SlotExecutor}, one call at a time.
 */
public interface Ledger {
    Outcome join(String node, long now);

    Outcome heartbeat(String node, long dueInMillis, long fullDueInMillis, long now);

    Outcome leave(String node, long now);

    Outcome acquire(String node, Ask ask, long now);

    Outcome release(String node, long epoch, long pauseMillis, long now);

    Outcome renew(String node, long epoch, long now);

    Outcome cancel(String node, long gcId, long now);

    List<SlotEvent> tick(long now);

    SlotView view();

    /** @return the grant {@code node} holds, or {@code null} */
    Grant grantOf(String node);

    /** @return the place of {@code node}'s request for {@code gcId} in the queue from 1, or -1 */
    int queuePosition(String node, long gcId);

    /** @return how many live members there are */
    int memberCount();

    /** @return how many grants are running */
    int collectingCount();

    /** @return how many requests wait */
    int queueLength();

    /**
     * @return whether this process may answer node calls now: always for a local ledger; for a replicated one,
     *     whether this replica is the Raft leader, ready (it has applied everything committed before its term)
     */
    boolean serving();

    /** @return who this replica is and who leads, for the cluster view; empty for a local ledger */
    String replicaDescription();

    /** Lets go of what the ledger holds (a replica: its Raft server); the service calls it once, when it closes. */
    void close();
}
