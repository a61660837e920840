package io.bladegc.ratis;

import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;

/**
 * When a Raft peer starts planning its collections: only once the slot group has a leader (a read of its ledger is
 * answered) and every peer of the group is a member of the ledger, and then only while the heap watcher expects the
 * JVM's next collection at least {@value #ROOM_MILLIS} ms away (or sees too little allocation to expect one), or at the
 * JVM's first collection after that. Until then the node's upcalls are deferred and nothing is planned, so the JVM
 * collects as it decides (a peer alone, or a group still electing, cannot grant anything that keeps a majority). The room is for the holder's first request: armed
 * with eden nearly full, a peer's JVM collected on its own milliseconds later, before its holder had asked, while
 * another peer collected under a grant (two peers paused at once, seen in {@code RaftInvariantsIT}). One line when it
 * starts observing, one when it is armed with how many collections the JVM ran on its own meanwhile.
 *
 * <p>Thread-safe.
 */
final class Arming {
    /** The handler while observing: plans nothing. */
    private static final GcHandler OBSERVE = request -> GcDecision.DEFER;
    /**
     * The least time to the JVM's next collection that arming leaves the holder's first request: the lead a peer's
     * first request is given before any was timed ({@link RaftBlade#FIRST_LEAD}) and 200 ms more. Not much more: the
     * heap watcher predicts from the recent peak allocation rate, and an idle peer's 5 ms bursts kept its prediction
     * under 2 s, so that with 2 s here peers armed only at their first collection, 18-31 s after start.
     */
    static final long ROOM_MILLIS = RaftBlade.FIRST_LEAD.toMillis() + 200;

    private final BladeNode node;
    private final GcHandler holder;
    private final LedgerMembers members;
    private final String self;
    private final RaftGroup slotGroup;
    private final Set<String> peers = new TreeSet<>();
    private final String policy;
    private final System.Logger log;
    private long startNanos;
    private long collectionsAtStart;
    /** The JVM's collection count when the slot group was first seen complete; -1 before. Arming thread only. */
    private long collectionsAtComplete = -1;
    /** Guarded by {@code this}. */
    private boolean armed;
    /** Guarded by {@code this}. */
    private boolean stopped;

    /** The members of the slot ledger, read through the slot group's leader. */
    @FunctionalInterface
    interface LedgerMembers {
        /** @throws IOException when the slot group does not answer (no leader yet) */
        Collection<String> read() throws IOException;
    }

    /**
     * @param holder  the handler to register once armed (the peer's grant holder)
     * @param members reads the ledger's members
     * @param policy  the quorum policy, as the armed line states it
     */
    Arming(BladeNode node, GcHandler holder, LedgerMembers members, String self, RaftGroup slotGroup, String policy,
           System.Logger log) {
        this.node = node;
        this.holder = holder;
        this.members = members;
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
            + " has a leader and all " + peers.size() + " peers " + peers + " in its ledger, and its next collection"
            + " is at least " + ROOM_MILLIS + " ms away; the JVM collects as it decides until then");
    }

    /**
     * Looks at the ledger once until the slot group is complete; after that, registers the holder once the JVM's next
     * collection is expected at least {@value #ROOM_MILLIS} ms away or the JVM has collected (at once when its
     * collection count is unknown), and says so. Called from one thread at a time.
     */
    void check() {
        synchronized (this) {
            if (armed || stopped) {
                return;
            }
        }
        long collections = node.collections();
        if (collectionsAtComplete < 0) {
            Set<String> missing = new TreeSet<>(peers);
            try {
                missing.removeAll(members.read());
            } catch (IOException e) {
                return; // no leader yet: the next look tries again
            }
            if (!missing.isEmpty()) {
                return;
            }
            collectionsAtComplete = Math.max(0, collections);
        }
        long lead = node.leadTimeMillis();
        boolean collected = collections < 0 || collections != collectionsAtComplete;
        if (!collected && lead >= 0 && lead < ROOM_MILLIS) {
            return; // eden too full for a first request: wait for room or a collection
        }
        synchronized (this) {
            if (armed || stopped) {
                return;
            }
            armed = true;
            node.register(holder);
        }
        long own = collectionsAtStart < 0 || collections < 0 ? -1 : collections - collectionsAtStart;
        log.log(Level.INFO, "Blade raft " + self + ": armed after " + (System.nanoTime() - startNanos) / 1_000_000
            + " ms: slot group " + slotGroup.getGroupId() + " has a leader and all " + peers.size() + " peers ("
            + policy + "), and " + (collected ? "the JVM collected since" : lead < 0 ? "the JVM allocates too little"
            + " to predict its next collection" : "the JVM's next collection is expected in " + lead + " ms")
            + "; the JVM collected on its own "
            + (own < 0 ? "an unknown number of" : Long.toString(own)) + " time" + (own == 1 ? "" : "s")
            + " while observing");
    }

    /** Stops arming: a later look does nothing. */
    synchronized void stop() {
        stopped = true;
    }
}
