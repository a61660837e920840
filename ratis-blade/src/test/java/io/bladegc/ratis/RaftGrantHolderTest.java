package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import io.bladegc.api.grant.GrantHolder;
import io.bladegc.api.grant.Prepared;
import io.bladegc.api.grant.RecentPauses;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.Status;
import io.bladegc.testkit.LocalRaftGroup;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Raft peer's grant-holder ({@link GrantHolder} over {@link SlotGroupPort} with {@link RaftHandOff}, as
 * {@link RaftBlade} wires it) on a real three-peer Ratis group in this JVM: each server runs an application group and
 * Blade's slot group ({@link RaftBlade#registry}, {@link RaftBlade#start}); the JVM side is a recording
 * {@link BladeNode} (a real one would collect this test's whole JVM, all three peers at once). Checked: a leader
 * hands every group it leads to the peer that collected most recently and collects only once it leads nothing, under
 * a grant it then releases; it hands off only under its grant, so a leader queued or refused a slot (a peer down) hands
 * nothing off; it collects in place only when enough of its measured pauses are all under
 * {@value RaftHandOff#IN_PLACE_SHARE} of the election timeout and shorter than its hand-offs, never with
 * {@code HandOff.ALWAYS}; one that handed off keeps its gate closed from then until its collection ended; a follower
 * collects without handing anything off; with no majority reachable nothing is collected.
 */
@Tag("cluster")
class RaftGrantHolderTest {
    private static final RaftBladeOptions OPTIONS = new RaftBladeOptions(Duration.ofSeconds(10), Duration.ofSeconds(3),
        Duration.ofSeconds(5), Duration.ofSeconds(2));

    @TempDir
    Path dir;
    private LocalRaftGroup group;
    private final Map<RaftPeerId, RaftBlade> blades = new LinkedHashMap<>();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        group = new LocalRaftGroup(dir, 3, (g, id) -> RaftBlade.registry(g, gid -> new BaseStateMachine(), OPTIONS));
        group.startAll();
        for (RaftServer s : group.servers()) {
            blades.put(s.getId(), RaftBlade.start(s, group.group(), group.properties(null), OPTIONS));
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        for (RaftBlade b : blades.values()) {
            b.close();
        }
        group.close();
    }

    @Test
    void aLeaderHandsOffToThePeerThatCollectedLastAndCollectsOnlyAsAFollower() throws Exception {
        RaftGroupId app = group.group().getGroupId();
        RaftServer leader = group.leader(app);
        group.leader(RaftBlade.slotGroup(group.group()).getGroupId());
        List<RaftPeerId> followers = others(leader.getId());
        SlotClient slots = client();
        awaitMembers(slots, 3);
        collectOnce(slots, followers.get(0).toString());
        collectOnce(slots, followers.get(1).toString()); // the most recent: the leader's choice

        RecordingNode node = new RecordingNode(slotGroupId(), leader);
        GrantHolder holder = holder(leader, node, slots, OPTIONS);
        assertThat(holder.onGcRequest(request(1))).isEqualTo(GcDecision.DEFER);
        node.awaitCollections(1);

        assertThat(node.ledAtCollection).as("groups %s led when it collected", leader.getId()).containsOnly(false);
        assertThat(node.gateOpenAtCollection).as("its gate, closed from the hand-off on").containsExactly(false);
        assertThat(group.leader(app).getId()).isEqualTo(followers.get(1));
        assertThat(stat(holder, "HandOffs")).isEqualTo(1);
        assertThat(stat(holder, "InPlace")).isZero();
        awaitReleased(slots, leader.getId().toString());
        assertThat(slots.view().slots().collecting()).isEmpty();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!node.gate().isOpen()) { // opened by the holder's thread right after the release
            assertThat(System.nanoTime()).as("the gate open again after the collection").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void aLeaderCollectsInPlaceOnlyWhenItsMeasuredPausesAreWellUnderTheElectionTimeout() throws Exception {
        LeaderCase c = leaderCase();
        RaftGroupId app = c.app();
        RaftServer leader = c.leader();
        SlotClient slots = c.slots();
        long bound = c.boundNanos();
        RecordingNode node = c.node();
        GrantHolder holder = c.holder();
        for (int i = 0; i < RaftHandOff.MIN_PAUSES - 1; i++) {
            node.paused(Generation.YOUNG, bound / 10); // the JVM's own collections, before any grant
        }
        holder.onGcRequest(request(1));
        node.awaitCollections(1);
        assertThat(stat(holder, "HandOffs")).as("%d pauses seen are too few: it hands off",
            RaftHandOff.MIN_PAUSES - 1).isEqualTo(1);
        assertThat(node.ledAtCollection).containsOnly(false);
        awaitReleased(slots, leader.getId().toString());

        giveLeadershipBack(app, leader);
        holder.onGcRequest(request(2)); // its own collection's pause made them enough
        node.awaitCollections(2);
        assertThat(stat(holder, "InPlace")).as("%d short pauses seen, shorter than the hand-off: in place",
            RaftHandOff.MIN_PAUSES).isEqualTo(1);
        assertThat(node.ledAtCollection).as("it led the application group when it collected").contains(true);
        assertThat(group.leader(app).getId()).isEqualTo(leader.getId());
    }

    @Test
    void aLeaderWhosePausesReachTheInPlaceBoundOrThatMustAlwaysHandOffHandsOff() throws Exception {
        LeaderCase c = leaderCase();
        RaftGroupId app = c.app();
        RaftServer leader = c.leader();
        SlotClient slots = c.slots();
        long bound = c.boundNanos();
        RecordingNode node = c.node();
        GrantHolder holder = c.holder();
        for (int i = 0; i < RecentPauses.WINDOW - 1; i++) {
            node.paused(Generation.YOUNG, bound / 10);
        }
        node.paused(Generation.YOUNG, bound); // one long pause among short ones
        holder.onGcRequest(request(1));
        node.awaitCollections(1);
        assertThat(stat(holder, "HandOffs")).as("the longest recent pause, not the typical one").isEqualTo(1);
        awaitReleased(slots, leader.getId().toString());

        giveLeadershipBack(app, leader);
        RecordingNode node2 = new RecordingNode(slotGroupId(), leader);
        GrantHolder always = holder(leader, node2, slots, OPTIONS.withHandOff(RaftBladeOptions.HandOff.ALWAYS));
        for (int i = 0; i < RecentPauses.WINDOW; i++) {
            node2.paused(Generation.YOUNG, bound / 10);
        }
        always.onGcRequest(request(2)); // the same peer: its GC ids go on growing (the ledger refuses an ended one)
        node2.awaitCollections(1);
        assertThat(stat(always, "HandOffs")).as("HandOff.ALWAYS").isEqualTo(1);
        assertThat(stat(always, "InPlace")).isZero();
        assertThat(node2.ledAtCollection).containsOnly(false);
    }

    @Test
    void aLeaderQueuedForItsSlotHandsOffOnlyOnceGranted() throws Exception {
        LeaderCase c = leaderCase();
        String other = others(c.leader().getId()).get(0).toString();
        Outcome held = c.slots().acquire(other, 1, 0);
        assertThat(held.status()).isEqualTo(Status.GRANTED);
        c.holder().onGcRequest(request(1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (stat(c.holder(), "QueuedWaits") == 0) {
            assertThat(System.nanoTime()).as("queued behind %s", other).isLessThan(deadline);
            Thread.sleep(20);
        }
        assertThat(stat(c.holder(), "HandOffs")).as("no hand-off before the grant").isZero();
        assertThat(group.leader(c.app()).getId()).isEqualTo(c.leader().getId());

        assertThat(c.slots().release(other, held.grant().epoch(), 1).status()).isEqualTo(Status.OK);
        c.node().awaitCollections(1);

        assertThat(c.node().ledAtCollection).as("it led nothing when it collected").containsOnly(false);
        assertThat(stat(c.holder(), "HandOffs")).as("once, under the grant").isEqualTo(1);
        assertThat(stat(c.holder(), "Cancels")).as("the grant was not given back").isZero();
        awaitReleased(c.slots(), c.leader().getId().toString());
    }

    @Test
    void aLeaderThatCannotBeGrantedASlotHandsNothingOff() throws Exception {
        LeaderCase c = leaderCase();
        RaftPeerId down = others(c.leader().getId()).get(0);
        blades.remove(down).close(); // its heartbeats stop (it leaves the ledger), then its server
        group.kill(down);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (c.slots().view().slots().members().contains(down.toString())) {
            assertThat(System.nanoTime()).as("%s lost by the ledger", down).isLessThan(deadline);
            Thread.sleep(50);
        }
        c.holder().onGcRequest(request(1));
        while (stat(c.holder(), "QueuedWaits") == 0) {
            assertThat(System.nanoTime()).as("queued: with a peer down the quorum policy grants nothing")
                .isLessThan(deadline);
            Thread.sleep(20);
        }
        Thread.sleep(1_000); // a second of asking for a slot that cannot be had
        assertThat(stat(c.holder(), "HandOffs")).as("a slot that cannot be had costs no hand-off").isZero();
        assertThat(group.leader(c.app()).getId()).isEqualTo(c.leader().getId());
        assertThat(c.node().collections.get()).isZero();
    }

    @Test
    void aLeaderAsksEarlierByItsRecentHandOffsAFollowerDoesNot() throws Exception {
        RaftGroupId app = group.group().getGroupId();
        RaftServer leader = group.leader(app);
        SlotClient slots = client();
        awaitMembers(slots, 3);
        RaftHandOff leading = new RaftHandOff(new LeadershipHandoff(leader, slotGroupId()), slots, OPTIONS);
        RaftHandOff following = new RaftHandOff(new LeadershipHandoff(group.server(others(leader.getId()).get(0)),
            slotGroupId()), slots, OPTIONS);
        RecentPauses pauses = new RecentPauses();
        assertThat(following.leadNanos(pauses))
            .as("a follower hands nothing off, whether it leads the slot group or not").isZero();
        assertThat(leading.leadNanos(pauses)).as("a leader before its first hand-off was timed")
            .isEqualTo(RaftHandOff.FIRST_HAND_OFF.toNanos());

        Prepared handed = leading.prepare(request(1), pauses);
        assertThat(handed.kind()).isEqualTo(Prepared.Kind.HANDED_OFF);
        assertThat(leading.leadNanos(pauses)).as("a follower now").isZero();
        giveLeadershipBack(app, leader);
        assertThat(leading.leadNanos(pauses)).as("leading again: its one timed hand-off").isEqualTo(handed.nanos());
        for (int i = 0; i < RaftHandOff.MIN_PAUSES; i++) {
            pauses.add(Generation.YOUNG, 1_000_000);
        }
        assertThat(leading.leadNanos(pauses)).as("a leader whose young pauses are measured safe collects in place")
            .isZero();
    }

    /** The application group's leader with its holder on a recording node, once the ledger has every peer. */
    private record LeaderCase(RaftGroupId app, RaftServer leader, SlotClient slots, long boundNanos,
                              RecordingNode node, GrantHolder holder) {
    }

    private LeaderCase leaderCase() throws Exception {
        RaftGroupId app = group.group().getGroupId();
        RaftServer leader = group.leader(app);
        SlotClient slots = client();
        awaitMembers(slots, 3);
        RecordingNode node = new RecordingNode(slotGroupId(), leader);
        return new LeaderCase(app, leader, slots,
            (long) (new LeadershipHandoff(leader, null).electionTimeoutMinNanos() * RaftHandOff.IN_PLACE_SHARE),
            node, holder(leader, node, slots, OPTIONS));
    }

    private void giveLeadershipBack(RaftGroupId app, RaftServer to) throws Exception {
        RaftServer now = group.leader(app);
        assertThat(now.transferLeadership(new TransferLeadershipRequest(ClientId.randomId(), now.getId(), app, 1,
            to.getId(), 10_000)).isSuccess()).isTrue();
        assertThat(group.leader(app).getId()).isEqualTo(to.getId());
    }

    @Test
    void aFollowerCollectsUnderAGrantWithoutHandingAnythingOff() throws Exception {
        RaftGroupId app = group.group().getGroupId();
        RaftServer leader = group.leader(app);
        RaftServer follower = group.server(others(leader.getId()).get(0));
        SlotClient slots = client();
        awaitMembers(slots, 3);
        String leaderOfSlots = group.leader(RaftBlade.slotGroup(group.group()).getGroupId()).getId().toString();
        RecordingNode node = new RecordingNode(slotGroupId(), follower);
        GrantHolder holder = holder(follower, node, slots, OPTIONS);
        holder.onGcRequest(request(1));
        node.awaitCollections(1);
        awaitReleased(slots, follower.getId().toString());
        assertThat(group.leader(app).getId()).isEqualTo(leader.getId());
        assertThat(stat(holder, "HandOffs")).as("leading the slot group (%s) is no reason to hand off", leaderOfSlots)
            .isZero();
        assertThat(stat(holder, "Collections")).isEqualTo(1);
        assertThat(node.gateOpenAtCollection).as("no hand-off: the gate is left to the drain").containsExactly(true);
    }

    @Test
    void withNoMajorityReachableNothingIsCollected() throws Exception {
        RaftServer leader = group.leader(group.group().getGroupId());
        SlotClient slots = client();
        awaitMembers(slots, 3);
        RaftServer survivor = group.server(others(leader.getId()).get(0));
        for (RaftPeerId id : others(survivor.getId())) {
            group.kill(id);
        }
        RecordingNode node = new RecordingNode(slotGroupId(), survivor);
        GrantHolder holder = holder(survivor, node, slots, OPTIONS);
        holder.onGcRequest(request(1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ended(holder) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(ended(holder)).as("the attempt ended (slot group unavailable, cancelled, or leading a group "
            + "it could not hand off)").isPositive();
        assertThat(node.collections.get()).isZero();
    }

    private static long ended(GrantHolder h) {
        return stat(h, "FailOpens") + stat(h, "Cancels") + stat(h, "HandOffFailures");
    }

    static long stat(GrantHolder h, String name) {
        return (Long) h.stats().get(name);
    }

    /** The holder {@link RaftBlade} gives a peer with the agent, on a recording node. */
    private GrantHolder holder(RaftServer server, BladeNode node, SlotClient slots, RaftBladeOptions options) {
        SlotGroupPort port = new SlotGroupPort(slots, server.getId().toString());
        GrantHolder h = new GrantHolder(node, port, new RaftHandOff(new LeadershipHandoff(server, slotGroupId()), slots, options),
            RaftBlade.settings(options), RaftBlade.HOLDER_THREAD, "raft test ", System.getLogger("test"));
        h.start();
        closing.add(h);
        closing.add(port);
        return h;
    }

    private RaftGroupId slotGroupId() {
        return RaftBlade.slotGroup(group.group()).getGroupId();
    }

    private SlotClient client() {
        SlotClient c = SlotClient.connect(RaftBlade.slotGroup(group.group()), group.properties(null),
            Duration.ofSeconds(5));
        closing.add(c);
        return c;
    }

    private List<RaftPeerId> others(RaftPeerId id) {
        return group.group().getPeers().stream().map(p -> p.getId()).filter(p -> !p.equals(id)).toList();
    }

    private static void collectOnce(SlotClient slots, String node) throws IOException {
        Outcome g = slots.acquire(node, 1_000 + node.hashCode() % 100, 0);
        assertThat(g.status()).isEqualTo(Status.GRANTED);
        assertThat(slots.release(node, g.grant().epoch(), 1).status()).isEqualTo(Status.OK);
    }

    /** Waits (up to 30 s) until the slot group, which the servers add after they start, has a leader and n members. */
    private static void awaitMembers(SlotClient slots, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                if (slots.view().slots().members().size() >= n) {
                    return;
                }
            } catch (IOException e) {
                // the slot group is still electing its first leader
            }
            assertThat(System.nanoTime()).as("%d members by heartbeat", n).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static void awaitReleased(SlotClient slots, String node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!slots.view().lastCollected().containsKey(node)) {
            assertThat(System.nanoTime()).as("%s's release in the ledger", node).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static GcRequest request(long id) {
        return new GcRequest(id, 1 << 20, 1 << 20, Duration.ofMillis(20), Generation.YOUNG);
    }
}
