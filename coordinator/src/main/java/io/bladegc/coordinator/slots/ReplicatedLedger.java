package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.QueueEntry;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotView;
import io.bladegc.ratis.SlotClient;
import io.bladegc.ratis.SlotStateMachine;
import java.io.IOException;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The slot ledger replicated among coordinator replicas by Raft ({@link SlotStateMachine} in this replica's Ratis
 * server). Writes go through the Raft log ({@link SlotClient}; the leader stamps the time, so the {@code now} passed
 * in is not used); reads come from this replica's applied state, which is current while it is the ready leader, the
 * only time the service answers nodes ({@link #serving()}). A write that Raft cannot commit within the call timeout
 * throws {@link LedgerUnavailableException}.
 *
 * <p>Not thread-safe: one call at a time, from the service's executor.
 */
public final class ReplicatedLedger implements Ledger {
    private final SlotClient client;
    private final SlotStateMachine replica;
    private final BooleanSupplier leaderReady;
    private final Supplier<String> description;
    private final AutoCloseable resources;

    /**
     * @param client      writes, through the group's leader
     * @param replica     this replica's state machine, for reads
     * @param leaderReady whether this replica is the group's leader and has applied all before its term
     * @param description who this replica is and who leads, for the cluster view
     * @param resources   closed by {@link #close()}: the client and this replica's Raft server
     */
    public ReplicatedLedger(SlotClient client, SlotStateMachine replica, BooleanSupplier leaderReady,
                            Supplier<String> description, AutoCloseable resources) {
        this.client = client;
        this.replica = replica;
        this.leaderReady = leaderReady;
        this.description = description;
        this.resources = resources;
    }

    /** A write Raft did not commit in time: no leader, no majority, or the call timed out. */
    public static final class LedgerUnavailableException extends RuntimeException {
        LedgerUnavailableException(IOException cause) {
            super("the replicated ledger did not answer: " + cause.getMessage(), cause);
        }
    }

    private interface Write {
        Outcome call() throws IOException;
    }

    private static Outcome write(Write w) {
        try {
            return w.call();
        } catch (IOException e) {
            throw new LedgerUnavailableException(e);
        }
    }

    @Override
    public Outcome join(String node, long now) {
        return write(() -> client.join(node));
    }

    @Override
    public Outcome heartbeat(String node, long dueInMillis, long fullDueInMillis, long now) {
        return write(() -> client.heartbeat(node, dueInMillis, fullDueInMillis));
    }

    @Override
    public Outcome leave(String node, long now) {
        return write(() -> client.leave(node));
    }

    @Override
    public Outcome acquire(String node, Ask ask, long now) {
        return write(() -> client.acquire(node, ask));
    }

    @Override
    public Outcome release(String node, long epoch, long pauseMillis, long now) {
        return write(() -> client.release(node, epoch, pauseMillis));
    }

    @Override
    public Outcome renew(String node, long epoch, long now) {
        return write(() -> client.renew(node, epoch));
    }

    @Override
    public Outcome cancel(String node, long gcId, long now) {
        return write(() -> client.cancel(node, gcId));
    }

    @Override
    public List<SlotEvent> tick(long now) {
        return write(client::tick).events();
    }

    @Override
    public SlotView view() {
        return replica.view().slots();
    }

    @Override
    public Grant grantOf(String node) {
        for (Grant g : view().collecting()) {
            if (g.node().equals(node)) {
                return g;
            }
        }
        return null;
    }

    @Override
    public int queuePosition(String node, long gcId) {
        int i = 1;
        for (QueueEntry q : view().queue()) {
            if (q.node().equals(node)) {
                return q.gcId() == gcId ? i : -1;
            }
            i++;
        }
        return -1;
    }

    @Override
    public int memberCount() {
        return view().members().size();
    }

    @Override
    public int collectingCount() {
        return view().collecting().size();
    }

    @Override
    public int queueLength() {
        return view().queue().size();
    }

    @Override
    public boolean serving() {
        return leaderReady.getAsBoolean();
    }

    @Override
    public String replicaDescription() {
        return description.get();
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            System.getLogger(ReplicatedLedger.class.getName()).log(System.Logger.Level.WARNING,
                "closing the replica: " + e);
        }
    }
}
