package io.bladegc.ratis;

import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import io.bladegc.api.grant.GrantHolder;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;

/**
 * When a Raft peer plans its collections: only once the slot group has a leader (a read of its ledger is
 * answered) and every peer of the group is a member of the ledger, and then only while the heap watcher expects the
 * JVM's next collection at least {@value #ROOM_MILLIS} ms away (or sees too little allocation to expect one), or at the
 * JVM's first collection after that. Until then the node's upcalls are deferred and nothing is planned, so the JVM
 * collects as it decides (a peer alone, or a group still electing, cannot grant anything that keeps a majority). The
 * room is for the holder's first request: armed with eden nearly full, a peer's JVM collected on its own milliseconds
 * later, before its holder had asked, while another peer collected under a grant (two peers paused at once, seen in
 * {@code RaftInvariantsIT}). One line when it starts observing, one when it is armed with how many collections the JVM
 * ran on its own meanwhile.
 *
 * <p><b>Standing aside.</b> Once armed, a peer whose JVM overtook at least {@value #ASIDE_OVERTAKEN} of its last
 * requests (collected on its own while the holder asked, queued or prepared), more than ran under grants, goes back
 * to observing for {@link #FIRST_ASIDE}, twice as long each time it does so again, at most {@link #LONGEST_ASIDE}:
 * the slot group cannot keep its collections apart at this rate, and planning them costs more than the collector
 * alone. On raft-kv-heavy (G1, 1,500,000 keys) the peers' edens filled in 0.1-0.5 s while grants came after up to
 * 1.5 s; asking at half eden doubled their collections (61-96 per peer against G1 alone's 25-39), the cores saturated,
 * pauses doubled and clients waited up to 34 s, where G1 alone kept them under 0.3 s. The peers apply the same log, so
 * they meet this together and stand aside together, and then pause in step as without Blade. Then it arms again as
 * above. One line each time, with its numbers.
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
    /**
     * Requests the JVM must have overtaken, more than collections planned, among a peer's last requests (up to twice
     * as many) before it stands aside. With 8 since arming, raft-kv-heavy's peers planned for 4-27 s first, and their
     * clients waited up to 7.7 s for the backlog.
     */
    static final int ASIDE_OVERTAKEN = 4;
    /**
     * How long a peer stands aside the first time. Each return costs its clients: on raft-kv-heavy a peer armed again
     * after 2 min stood aside again within 1-13 s, and meanwhile clients waited 0.6-1.1 s (hand-offs, two peers
     * paused at once), where G1 alone's worst was 0.2-0.3 s.
     */
    static final Duration FIRST_ASIDE = Duration.ofMinutes(10);
    /** The longest it stands aside; an armed spell this long without standing aside starts again from the first. */
    static final Duration LONGEST_ASIDE = Duration.ofMinutes(80);

    private final BladeNode node;
    private final GcHandler holder;
    private final Supplier<GrantHolder.Overtaken> overtaken;
    /** {@link System#nanoTime()}, or a test's. */
    private final LongSupplier clock;
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
    /** When it armed; the holder's counts when the requests judged began (at arming, then every few). Arming thread. */
    private long armedAt;
    private GrantHolder.Overtaken judgedFrom;
    /** How long it stood aside the last time, 0 before; until when it stands aside now. Arming thread only. */
    private long asideNanos;
    private long asideUntil;
    /** Guarded by {@code this}. */
    private boolean stopped;

    /** The members of the slot ledger, read through the slot group's leader. */
    @FunctionalInterface
    interface LedgerMembers {
        /** @throws IOException when the slot group does not answer (no leader yet) */
        Collection<String> read() throws IOException;
    }

    /**
     * @param holder    the handler to register once armed (the peer's grant holder)
     * @param overtaken the holder's requests the JVM overtook, and its collections under grants
     * @param members   reads the ledger's members
     * @param policy    the quorum policy, as the armed line states it
     * @param clock     {@link System#nanoTime()}
     */
    Arming(BladeNode node, GcHandler holder, Supplier<GrantHolder.Overtaken> overtaken, LedgerMembers members,
           String self, RaftGroup slotGroup, String policy, System.Logger log, LongSupplier clock) {
        this.node = node;
        this.holder = holder;
        this.overtaken = overtaken;
        this.clock = clock;
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
        startNanos = clock.getAsLong();
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
            if (stopped) {
                return;
            }
            if (armed) {
                standAsideIfOvertaken();
                return;
            }
        }
        if (asideNanos != 0 && clock.getAsLong() - asideUntil < 0) {
            return; // standing aside still
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
            armedAt = clock.getAsLong();
            judgedFrom = overtaken.get();
            node.register(holder);
        }
        long own = collectionsAtStart < 0 || collections < 0 ? -1 : collections - collectionsAtStart;
        log.log(Level.INFO, "Blade raft " + self + ": armed after " + (clock.getAsLong() - startNanos) / 1_000_000
            + " ms: slot group " + slotGroup.getGroupId() + " has a leader and all " + peers.size() + " peers ("
            + policy + "), and " + (collected ? "the JVM collected since" : lead < 0 ? "the JVM allocates too little"
            + " to predict its next collection" : "the JVM's next collection is expected in " + lead + " ms")
            + "; the JVM collected on its own "
            + (own < 0 ? "an unknown number of" : Long.toString(own)) + " time" + (own == 1 ? "" : "s")
            + " while observing");
    }

    /**
     * Goes back to observing when the JVM overtook at least {@value #ASIDE_OVERTAKEN} of the requests judged, more than
     * ran under grants (see the class comment), and says so; once twice that many were judged, the next ones are.
     */
    private void standAsideIfOvertaken() {
        GrantHolder.Overtaken now = overtaken.get();
        long over = now.overtaken() - judgedFrom.overtaken();
        long planned = now.collected() - judgedFrom.collected();
        if (over < ASIDE_OVERTAKEN || over <= planned) {
            if (over + planned >= 2 * ASIDE_OVERTAKEN) {
                judgedFrom = now; // judged enough of them: the next ones are judged on their own
            }
            return;
        }
        long t = clock.getAsLong();
        long armedFor = t - armedAt;
        asideNanos = asideNanos == 0 || armedFor >= LONGEST_ASIDE.toNanos() ? FIRST_ASIDE.toNanos()
            : Math.min(2 * asideNanos, LONGEST_ASIDE.toNanos());
        asideUntil = t + asideNanos;
        armed = false;
        collectionsAtComplete = -1;
        startNanos = t;
        collectionsAtStart = node.collections();
        node.register(OBSERVE);
        log.log(Level.INFO, "Blade raft " + self + ": standing aside for " + asideNanos / 1_000_000_000 + " s: the JVM"
            + " collected on its own before " + over + " of its last requests, while " + planned + " collections ran under grants"
            + " (armed " + armedFor / 1_000_000_000 + " s ago); the slot group cannot keep this peer's collections"
            + " apart at this rate, and planning them costs more than the collector alone; the JVM collects as it"
            + " decides until then");
    }

    /** Stops arming: a later look does nothing. */
    synchronized void stop() {
        stopped = true;
    }
}
