package io.bladegc.ratis;

import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import io.bladegc.api.grant.GrantHolder;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.TreeSet;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;

/**
 * When a Raft peer starts planning its collections: only once the slot group has a leader (a read of its ledger is
 * answered) and every peer of the group is a member of the ledger. Until then the node's upcalls are deferred and
 * nothing is planned, so the JVM collects as it decides (a peer alone, or a group still electing, cannot grant
 * anything that keeps a majority). One line when it starts observing, one when it is armed with how many collections
 * the JVM ran on its own meanwhile.
 *
 * <p>Thread-safe.
 */
final class Arming {
    /** The handler while observing: plans nothing. */
    private static final GcHandler OBSERVE = request -> GcDecision.DEFER;

    private final BladeNode node;
    private final GrantHolder holder;
    private final SlotClient slots;
    private final String self;
    private final RaftGroup slotGroup;
    private final Set<String> peers = new TreeSet<>();
    private final String policy;
    private final System.Logger log;
    private long startNanos;
    private long collectionsAtStart;
    /** Guarded by {@code this}. */
    private boolean armed;
    /** Guarded by {@code this}. */
    private boolean stopped;

    Arming(BladeNode node, GrantHolder holder, SlotClient slots, String self, RaftGroup slotGroup, String policy,
           System.Logger log) {
        this.node = node;
        this.holder = holder;
        this.slots = slots;
        this.self = self;
        this.slotGroup = slotGroup;
        for (RaftPeer p : slotGroup.getPeers()) {
            peers.add(p.getId().toString());
        }
        this.policy = policy;
        this.log = log;
    }

    /** Registers the observing handler and says so. */
    synchronized void observe() {
        startNanos = System.nanoTime();
        collectionsAtStart = node.collections();
        node.register(OBSERVE);
        log.log(Level.INFO, "Blade raft " + self + ": observing until slot group " + slotGroup.getGroupId()
            + " has a leader and all " + peers.size() + " peers " + peers + " in its ledger; the JVM collects as it"
            + " decides until then");
    }

    /** Looks at the ledger once; when the slot group is complete, registers the holder and says so. */
    void check() {
        synchronized (this) {
            if (armed || stopped) {
                return;
            }
        }
        Set<String> missing = new TreeSet<>(peers);
        try {
            missing.removeAll(slots.view().slots().members());
        } catch (IOException e) {
            return; // no leader yet: the next look tries again
        }
        if (!missing.isEmpty()) {
            return;
        }
        synchronized (this) {
            if (armed || stopped) {
                return;
            }
            armed = true;
            node.register(holder);
        }
        long own = collectionsAtStart < 0 ? -1 : node.collections() - collectionsAtStart;
        log.log(Level.INFO, "Blade raft " + self + ": armed after " + (System.nanoTime() - startNanos) / 1_000_000
            + " ms: slot group " + slotGroup.getGroupId() + " has a leader and all " + peers.size() + " peers ("
            + policy + "); the JVM collected on its own " + (own < 0 ? "an unknown number of" : Long.toString(own))
            + " time" + (own == 1 ? "" : "s") + " while observing");
    }

    /** Stops arming: a later look does nothing. */
    synchronized void stop() {
        stopped = true;
    }
}
