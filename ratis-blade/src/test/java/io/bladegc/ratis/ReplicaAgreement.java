package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.LedgerState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The replicas agree: every one's whole ledger equal once they have applied the same log. */
final class ReplicaAgreement {
    private ReplicaAgreement() {
    }

    /**
     * Waits until the replicas have applied the same log index, then checks their ledgers are equal.
     *
     * @param replicas the running replicas' state machines, asked again at every try
     * @param seconds  how long they may take to catch up
     */
    static void await(Supplier<List<SlotStateMachine>> replicas, long seconds) throws InterruptedException {
        await(replicas, seconds, () -> "");
    }

    /**
     * As {@link #await(Supplier, long)}, and names the replicas' Raft state when they disagree.
     *
     * @param raftState the servers' roles, terms and log indexes, read only on failure
     */
    static void await(Supplier<List<SlotStateMachine>> replicas, long seconds, Supplier<String> raftState)
        throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            List<LedgerState> states = new ArrayList<>();
            List<Long> applied = new ArrayList<>();
            for (SlotStateMachine m : replicas.get()) {
                applied.add(m.view().appliedIndex());
                states.add(m.state());
            }
            if (applied.stream().distinct().count() == 1 || System.nanoTime() > deadline) {
                assertThat(applied).as(() -> "applied indexes " + raftState.get()).containsOnly(applied.get(0));
                assertThat(states).as("replicas' ledgers").containsOnly(states.get(0));
                return;
            }
            Thread.sleep(20);
        }
    }
}
