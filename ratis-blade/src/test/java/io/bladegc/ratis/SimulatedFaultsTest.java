package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import io.bladegc.api.grant.GrantHolder;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.RaftTestUtil;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.impl.DelayLocalExecutionInjection;
import org.apache.ratis.server.impl.RaftServerTestUtil;
import org.apache.ratis.server.simulation.MiniRaftClusterWithSimulatedRpc;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Faults on Ratis' own test cluster with simulated RPC ({@link MiniRaftClusterWithSimulatedRpc}), where a peer can be
 * cut off ({@link RaftTestUtil#isolate}) or slowed down (its log sync delayed,
 * {@link RaftServerTestUtil#getLogSyncDelay}): an isolated peer is counted down and nothing is granted that would leave
 * the others without a majority; healed, it catches up and the replicas agree; a leader whose preferred successor is
 * unreachable counts it silent and hands off to the other follower instead; a slow follower, lagging behind the
 * commit index, does not keep the leader from handing off and collecting, and catches up; under steady writes a
 * leader waits for its successor to hold the entries it had when the wait began, not for a last entry that keeps
 * moving, and its hand-off ends once it no longer leads.
 */
@Tag("cluster")
class SimulatedFaultsTest {
    private static final SlotPolicy POLICY = QuorumPolicy.of(3, Duration.ofSeconds(10), Duration.ofSeconds(3));
    private static final RaftBladeOptions OPTIONS = new RaftBladeOptions(Duration.ofSeconds(10), Duration.ofSeconds(3),
        Duration.ofSeconds(6), Duration.ofSeconds(5));

    /** The leader's clock, moved by hand; it starts at the wall clock, which a peer compares its lease deadline to. */
    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
    private MiniRaftClusterWithSimulatedRpc cluster;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(150, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        cluster = MiniRaftClusterWithSimulatedRpc.FACTORY.newCluster(3, p);
        cluster.setStateMachineRegistry(gid -> new SlotStateMachine(POLICY, clock::get));
        cluster.start();
        RaftTestUtil.waitForLeader(cluster);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        cluster.shutdown();
    }

    private SlotClient client() {
        return client(null);
    }

    /** @param leader the peer asked first, {@code null} for Ratis' choice */
    private SlotClient client(RaftPeerId leader) {
        RaftClient raw = cluster.createClient(leader, RetryPolicies.retryUpToMaximumCountWithFixedSleep(100,
            TimeDuration.valueOf(50, TimeUnit.MILLISECONDS)));
        SlotClient c = SlotClient.of(raw, Duration.ofSeconds(10));
        closing.add(c);
        return c;
    }

    private List<String> ids() {
        return cluster.getPeers().stream().map(p -> p.getId().toString()).toList();
    }

    @Test
    void anIsolatedPeerCountsAsDownAndHealedItCatchesUp() throws Exception {
        SlotClient slots = client();
        for (String n : ids()) {
            slots.join(n);
        }
        // a follower: an isolated leader keeps uncommitted entries (of the client's writes, or its own), a tail the
        // next leader must cut, which Ratis 3.2.2's appender of simulated RPC (LogAppenderDefault) cannot always do:
        // a heartbeat's reply sets the follower's match index past the common prefix, and nextIndex then swings
        // 8 -> 7 -> 8 for good (RATIS-2605, fixed on Ratis' main branch in 2026-07, in no release yet; seen here twice
        // under load, the second time with every write sent to the new leader)
        // a leader, waited for: under CPU load the joins above may have set off an election (getLeader() was null)
        RaftServer leader = RaftTestUtil.waitForLeader(cluster).getRaftServer();
        RaftPeerId isolated = ids().stream().map(RaftPeerId::valueOf).filter(id -> !id.equals(leader.getId()))
            .findFirst().orElseThrow();
        List<String> others = ids().stream().filter(n -> !n.equals(isolated.toString())).toList();
        RaftTestUtil.isolate(cluster, isolated);
        try {
            SlotClient live = client(leaderOtherThan(isolated)); // not through the isolated peer
            for (int i = 0; i < 2; i++) { // the isolated peer's heartbeats cannot reach the ledger: it goes silent
                clock.addAndGet(POLICY.memberTimeoutMillis() / 2 + 1);
                for (String n : others) {
                    assertThat(live.heartbeat(n).status()).isEqualTo(Status.OK);
                }
            }
            assertThat(live.view().slots().members()).containsExactlyElementsOf(others);
            assertThat(live.acquire(others.get(0), 1, 0).status())
                .as("one of the two live peers collecting would leave no majority").isEqualTo(Status.QUEUED);
        } finally {
            RaftTestUtil.deIsolate(cluster, isolated);
        }
        Outcome back = slots.join(isolated.toString());
        assertThat(back.status()).isEqualTo(Status.OK);
        assertThat(back.events()).as("three live again: the queued request is granted").anySatisfy(e ->
            assertThat(e.node()).isEqualTo(others.get(0)));
        awaitReplicasIdentical();
    }

    /** @return the peer the others elected once {@code isolated} was cut off (within 10 s) */
    private RaftPeerId leaderOtherThan(RaftPeerId isolated) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<RaftPeerId> leaders = new ArrayList<>();
            cluster.iterateDivisions().forEach(d -> {
                if (d.getInfo().isLeader() && !d.getId().equals(isolated)) {
                    leaders.add(d.getId());
                }
            });
            if (!leaders.isEmpty()) {
                return leaders.get(0);
            }
            assertThat(System.nanoTime()).as("a leader besides %s", isolated).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void aLeaderWhosePreferredSuccessorIsUnreachableHandsOffToTheOther() throws Exception {
        SlotClient slots = client();
        // a leader, waited for: under CPU load the joins above may have set off an election (getLeader() was null)
        RaftServer leader = RaftTestUtil.waitForLeader(cluster).getRaftServer();
        List<String> followers = followersThatCollected(slots, leader);
        RaftPeerId preferred = RaftPeerId.valueOf(followers.get(1));
        RaftTestUtil.isolate(cluster, preferred);
        try {
            RaftServer.Division division = leader.getDivision(cluster.getGroupId());
            long silentBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!LeadershipHandoff.silentFollowers(division, 150).contains(preferred)) {
                assertThat(System.nanoTime()).as("the leader counting %s silent", preferred).isLessThan(silentBy);
                Thread.sleep(10);
            }
            assertThat(LeadershipHandoff.silentFollowers(division, 150)).as("the reachable follower answers")
                .doesNotContain(RaftPeerId.valueOf(followers.get(0)));
            GrantHolder holder = leaderCollects(leader, slots, List.of(followers.get(0)),
                preferred + " is unreachable");
            assertThat(RaftGrantHolderTest.stat(holder, "HandOffFailures")).as("the first choice failing is not the hand-off failing")
                .isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!slots.view().lastCollected().containsKey(leader.getId().toString())) {
                assertThat(System.nanoTime()).as("the old leader's release in the ledger").isLessThan(deadline);
                Thread.sleep(50);
            }
        } finally {
            RaftTestUtil.deIsolate(cluster, preferred);
        }
    }

    @Test
    void withASlowFollowerLaggingTheLeaderStillHandsOffAndCollectsAndItCatchesUp() throws Exception {
        SlotClient slots = client();
        // a leader, waited for: under CPU load the joins above may have set off an election (getLeader() was null)
        RaftServer leader = RaftTestUtil.waitForLeader(cluster).getRaftServer();
        List<String> followers = followersThatCollected(slots, leader);
        RaftPeerId slow = RaftPeerId.valueOf(followers.get(1));
        DelayLocalExecutionInjection logSync = RaftServerTestUtil.getLogSyncDelay();
        // every append it takes, heartbeats too, waits 40 ms: it lags, yet hears from the leader well within the
        // shortest election timeout (150 ms; the leader sends the next append when the last one is answered)
        logSync.setDelayMs(slow.toString(), 40);
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread writer = new Thread(() -> { // entries keep coming: the slow follower stays behind the commit index
            for (int i = 0; writing.get() && i < 100_000; i++) {
                try {
                    slots.heartbeat(followers.get(0));
                } catch (IOException e) {
                    // leadership moving
                }
            }
        }, "writer");
        writer.start();
        try {
            RaftServer.Division division = leader.getDivision(cluster.getGroupId());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!lags(division, slow)) {
                assertThat(System.nanoTime()).as("%s behind the commit index", slow).isLessThan(deadline);
                Thread.sleep(10);
            }
            // either may take over: the leader's own look may find the slow one caught up for a moment (which
            // successor comes first is LeadershipHandoffTest's); the hand-off must not fail
            GrantHolder holder = leaderCollects(leader, slots, followers, "with " + slow + " lagging");
            assertThat(RaftGrantHolderTest.stat(holder, "HandOffFailures")).isZero();
        } finally {
            writing.set(false);
            writer.join(TimeUnit.SECONDS.toMillis(30));
            logSync.clear();
        }
        awaitReplicasIdentical();
    }

    @Test
    void underSteadyWritesALeaderWaitsForItsSuccessorToHoldWhatItHadNotForALevelThatKeepsMoving() throws Exception {
        SlotClient slots = client();
        RaftServer leader = RaftTestUtil.waitForLeader(cluster).getRaftServer();
        List<String> followers = followersThatCollected(slots, leader);
        RaftPeerId slow = RaftPeerId.valueOf(followers.get(1));
        DelayLocalExecutionInjection logSync = RaftServerTestUtil.getLogSyncDelay();
        logSync.setDelayMs(slow.toString(), 20); // each append it takes waits 20 ms: it trails the leader's last entry
        AtomicBoolean writing = new AtomicBoolean(true);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) { // writes in flight at every moment, as from a service's clients
            Thread writer = new Thread(() -> {
                for (int i = 0; writing.get() && i < 100_000; i++) {
                    try {
                        slots.heartbeat(followers.get(0));
                    } catch (IOException e) {
                        // leadership moving
                    }
                }
            }, "writer-" + w);
            writer.start();
            writers.add(writer);
        }
        try {
            RaftServer.Division division = leader.getDivision(cluster.getGroupId());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!lags(division, slow)) {
                assertThat(System.nanoTime()).as("%s behind the commit index", slow).isLessThan(deadline);
                Thread.sleep(10);
            }
            long start = System.nanoTime();
            boolean caughtUp = LeadershipHandoff.awaitCaughtUp(division, slow, 2_000);
            long waited = System.nanoTime() - start;
            // the leader's last entry moves on all the while: waiting to see the follower level with it, the wait
            // almost always ran to its bound (200 ms of every hand-off in RaftInvariantsIT)
            assertThat(caughtUp).as("%s holding what the leader had when the wait began (%d ms)", slow,
                waited / 1_000_000).isTrue();

            // the writes stop before the hand-off: one the old leader appended after the successor's catch-up and
            // before its step-down stays in its log uncommitted, a tail the new leader must cut, which Ratis 3.2.2
            // cannot always do (RATIS-2605; a fresh-clone CI run on 2026-11-29 ended with the old leader at (t:1,
            // i:67), committed 65, for 30 s while the others applied 73). What this test is about, the catch-up wait
            // under a moving level, ran above, under the writes.
            writing.set(false);
            for (Thread w : writers) {
                w.join(TimeUnit.SECONDS.toMillis(30));
            }
            LeadershipHandoff.Transfer t = new LeadershipHandoff(leader, null).handOff(cluster.getGroupId(), slots,
                OPTIONS.transferTimeout().toMillis());
            assertThat(t.steppedDown()).as("handed off: %s", t.phases()).isTrue();
            assertThat(t.caughtUp()).as("its successor caught up: %s", t.phases()).isTrue();
            assertThat(division.getInfo().isLeader()).as("the old leader, once handOff returned").isFalse();
        } finally {
            writing.set(false);
            for (Thread w : writers) {
                w.join(TimeUnit.SECONDS.toMillis(30));
            }
            logSync.clear();
        }
        awaitReplicasIdentical();
    }

    /**
     * Every peer joins the ledger, then the two followers of {@code leader} each collect once.
     *
     * @return the followers, the one that collected last (the preferred successor) second
     */
    private List<String> followersThatCollected(SlotClient slots, RaftServer leader) throws IOException {
        for (String n : ids()) {
            slots.join(n);
        }
        List<String> followers = ids().stream().filter(n -> !n.equals(leader.getId().toString())).toList();
        for (String f : followers) {
            clock.addAndGet(100);
            Outcome g = slots.acquire(f, 1, 0);
            assertThat(slots.release(f, g.grant().epoch(), 1).status()).isEqualTo(Status.OK);
        }
        return followers;
    }

    /**
     * {@code leader} needs a collection: it hands off to one of {@code successors} and collects as a follower. Once,
     * or twice when it was elected again while it waited for its grant (a transfer can fail for a moment: the
     * transferee's election rejected, the old leader re-elected; the hand-off ends at the old leader's step-down, so
     * that shows after it, and the holder hands off again under its grant).
     */
    private GrantHolder leaderCollects(RaftServer leader, SlotClient slots, List<String> successors, String why)
            throws Exception {
        RecordingNode node = new RecordingNode(null, leader);
        SlotGroupPort port = new SlotGroupPort(slots, leader.getId().toString());
        GrantHolder holder = new GrantHolder(node, port, new RaftHandOff(new LeadershipHandoff(leader, null), slots, OPTIONS),
            RaftBlade.settings(OPTIONS), RaftBlade.HOLDER_THREAD, "raft test ", System.getLogger("test"));
        holder.start();
        closing.add(holder);
        closing.add(port);
        holder.onGcRequest(new GcRequest(1, 1 << 20, 1 << 20, Duration.ofMillis(20), Generation.YOUNG));
        node.awaitCollections(1);
        assertThat(node.ledAtCollection).containsOnly(false);
        assertThat(RaftTestUtil.waitForLeader(cluster).getId().toString()).as("the new leader (%s)", why)
            .isIn(successors);
        String line = (String) holder.stats().get("LastEvent");
        assertThat(RaftGrantHolderTest.stat(holder, "HandOffs")).as(line)
            .isEqualTo(line.contains("elected leader meanwhile") ? 2 : 1);
        return holder;
    }

    /** @return whether the leader's division knows {@code follower}'s match index to be below its commit index */
    private static boolean lags(RaftServer.Division leader, RaftPeerId follower) {
        Long match = LeadershipHandoff.followerMatchIndices(leader).get(follower);
        return match != null && match < leader.getRaftLog().getLastCommittedIndex();
    }

    /** Every replica's whole ledger equal (up to 30 s: a healed peer hears from the new leader when its appender
     * retries). */
    private void awaitReplicasIdentical() throws Exception {
        List<SlotStateMachine> machines = new ArrayList<>();
        ReplicaAgreement.await(() -> {
            machines.clear();
            cluster.iterateDivisions().forEach(d -> machines.add((SlotStateMachine) d.getStateMachine()));
            return List.copyOf(machines);
        }, 30, this::raftState);
    }

    /** Each server's role, term and log, for a failure's message. */
    private String raftState() {
        StringBuilder b = new StringBuilder();
        cluster.iterateDivisions().forEach(d -> b.append(String.format("%n  %s %s term %d, log last %s, committed %d",
            d.getId(), d.getInfo().getCurrentRole(), d.getInfo().getCurrentTerm(),
            d.getRaftLog().getLastEntryTermIndex(), d.getRaftLog().getLastCommittedIndex())));
        return b.toString();
    }
}
