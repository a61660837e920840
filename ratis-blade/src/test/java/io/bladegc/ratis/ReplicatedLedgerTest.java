package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.LedgerState;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.Status;
import io.bladegc.testkit.LocalRaftGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slot ledger replicated by a real three-peer Ratis group in this JVM (gRPC on loopback). Each peer's state
 * machine stamps entries with its own clock, and the three clocks are an hour apart: replicas that read their own
 * clock at apply would diverge. Checked: the quorum allowance, down peers counting against it, leases ending through
 * the log, the leader killed right after a grant, retried requests answered from the retry cache, snapshots and
 * restarts with and without storage, and identical ledgers on every replica.
 */
@Tag("cluster")
class ReplicatedLedgerTest {
    private static final long LEASE = 10_000;
    private static final long MEMBER_TIMEOUT = 3_000;
    private static final SlotPolicy POLICY = QuorumPolicy.of(3, Duration.ofMillis(LEASE), Duration.ofMillis(MEMBER_TIMEOUT));

    @TempDir
    Path dir;
    private final AtomicLong clock = new AtomicLong(1_000_000);
    /** Each peer's clock is {@code clock} plus its offset: an hour apart, unless a test needs them to agree. */
    private final Map<String, Long> offsets = new ConcurrentHashMap<>(Map.of("n1", 0L, "n2",
        TimeUnit.HOURS.toMillis(1), "n3", TimeUnit.HOURS.toMillis(2)));
    private final Map<RaftPeerId, SlotStateMachine> machines = new ConcurrentHashMap<>();
    private LocalRaftGroup group;
    private SlotClient client;

    @BeforeEach
    void start() throws Exception {
        group = new LocalRaftGroup(dir, 3, (g, id) -> gid -> {
            SlotStateMachine m = new SlotStateMachine(POLICY, () -> clock.get() + offsets.getOrDefault(id.toString(), 0L));
            machines.put(id, m);
            return m;
        });
        group.startAll();
        client = SlotClient.connect(group.group(), group.properties(null), Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        group.close();
    }

    /** The leader's clock offset: the time the ledger sees is {@code clock + offset}. */
    private long leaderOffset() throws Exception {
        return offsets.getOrDefault(group.leader(group.group().getGroupId()).getId().toString(), 0L);
    }

    @Test
    void oneOfThreeCollectsAtATimeAndADownPeerCountsAgainstTheMajority() throws Exception {
        for (String n : List.of("n1", "n2", "n3")) {
            assertThat(client.join(n).status()).isEqualTo(Status.OK);
        }
        Outcome first = client.acquire("n1", 1, 0);
        assertThat(first.status()).isEqualTo(Status.GRANTED);
        assertThat(client.acquire("n2", 1, 0).status()).as("a second peer collecting would leave no majority")
            .isEqualTo(Status.QUEUED);
        Outcome released = client.release("n1", first.grant().epoch(), 5);
        assertThat(released.events()).anySatisfy(e -> {
            assertThat(e.type()).isEqualTo(SlotEvent.Type.GRANTED);
            assertThat(e.node()).isEqualTo("n2");
        });
        long n2Epoch = client.acquire("n2", 1, 0).grant().epoch();
        assertThat(client.release("n2", n2Epoch, 5).status()).isEqualTo(Status.OK);

        for (int i = 0; i < 2; i++) { // n3 silent past the member timeout: down; n1 and n2 heard from meanwhile
            clock.addAndGet(MEMBER_TIMEOUT / 2 + 1);
            client.heartbeat("n1");
            assertThat(client.heartbeat("n2").status()).isEqualTo(Status.OK);
        }
        assertThat(client.view().slots().members()).containsExactly("n1", "n2");
        assertThat(client.acquire("n1", 2, 0).status()).as("with n3 down, n1 collecting would leave one of three")
            .isEqualTo(Status.QUEUED);
        awaitReplicasIdentical();
    }

    @Test
    void aHeartbeatsAnswerInvitesAPeerThatWouldComeDueDuringAnothersNearFullCollection() throws Exception {
        for (String n : List.of("n1", "n2", "n3")) {
            assertThat(client.join(n).status()).isEqualTo(Status.OK);
        }
        assertThat(client.acquire("n3", 1, 0).status()).isEqualTo(Status.GRANTED);
        assertThat(client.acquire("n1", new Ask(1, 5_000, true, 500, 0)).status())
            .as("n1's full collection, expected to hold 500 ms, waits for n3").isEqualTo(Status.QUEUED);
        assertThat(client.heartbeat("n1", 5_000, 1_000).invitedBy()).as("not by its own").isNull();
        assertThat(client.heartbeat("n2", 1_200, -1).invitedBy())
            .as("n2 comes due 200 ms into n1's full collection, due in 1 s: it collects now instead").isEqualTo("n1");
        assertThat(client.heartbeat("n2", 3_000, -1).invitedBy()).as("due well after it").isNull();
    }

    @Test
    void aLeaseEndsAtItsDeadlineInLogTimeAndALateReleaseIsStale() throws Exception {
        for (String n : List.of("n1", "n2", "n3")) {
            client.join(n);
        }
        Outcome g = client.acquire("n3", 7, 0);
        assertThat(g.status()).isEqualTo(Status.GRANTED);
        assertThat(g.grant().deadline()).isEqualTo(clock.get() + leaderOffset() + LEASE);

        for (long passed = 0; passed < LEASE - 1; ) { // all three alive; n3 just does not release
            long step = Math.min(MEMBER_TIMEOUT / 2, LEASE - 1 - passed);
            clock.addAndGet(step);
            passed += step;
            for (String n : List.of("n1", "n2", "n3")) {
                client.heartbeat(n);
            }
        }
        assertThat(client.view().slots().collecting()).extracting(io.bladegc.api.slot.Grant::node).containsExactly("n3");
        clock.addAndGet(1);
        Outcome beat = client.heartbeat("n1");
        assertThat(beat.events()).anySatisfy(e -> {
            assertThat(e.type()).isEqualTo(SlotEvent.Type.EXPIRED);
            assertThat(e.epoch()).isEqualTo(g.grant().epoch());
        });
        assertThat(client.release("n3", g.grant().epoch(), 900).status()).isEqualTo(Status.STALE_EPOCH);
        awaitReplicasIdentical();
    }

    @Test
    void theLeaderKilledRightAfterAGrantLosesNoGrantAndGrantsNoSecond() throws Exception {
        offsets.clear(); // the leader changes here: leases assume the peers' clocks agree
        for (String n : List.of("n1", "n2", "n3")) {
            client.join(n);
        }
        RaftServer leader = group.leader(group.group().getGroupId());
        String follower = group.group().getPeers().stream().map(p -> p.getId().toString())
            .filter(id -> !id.equals(leader.getId().toString())).findFirst().orElseThrow();
        Outcome g = client.acquire(follower, 3, 0);
        assertThat(g.status()).isEqualTo(Status.GRANTED);

        group.kill(leader.getId());
        RaftServer next = group.leader(group.group().getGroupId());
        assertThat(next.getId()).isNotEqualTo(leader.getId());
        assertThat(client.view().slots().collecting()).singleElement().satisfies(k -> {
            assertThat(k.node()).isEqualTo(follower);
            assertThat(k.epoch()).isEqualTo(g.grant().epoch());
        });
        String other = group.group().getPeers().stream().map(p -> p.getId().toString())
            .filter(id -> !id.equals(follower) && !id.equals(leader.getId().toString())).findFirst().orElseThrow();
        assertThat(client.acquire(other, 1, 0).status()).isEqualTo(Status.QUEUED);
        assertThat(client.acquire(follower, 3, 0).grant().epoch()).as("the retried acquire finds the same grant")
            .isEqualTo(g.grant().epoch());
        assertThat(client.release(follower, g.grant().epoch(), 4).status()).isEqualTo(Status.OK);

        group.start(leader.getId());
        awaitReplicasIdentical();
    }

    @Test
    void aRetriedRequestIsAnsweredFromTheRetryCacheNotAppliedTwice() throws Exception {
        for (String n : List.of("n1", "n2", "n3")) {
            client.join(n);
        }
        long epoch = client.acquire("n2", 1, 0).grant().epoch();
        RaftServer leader = group.leader(group.group().getGroupId());
        ClientId id = ClientId.randomId();
        RaftClientRequest release = request(leader, id, 42, new SlotCommand.Release("n2", epoch, 3));
        Outcome once = SlotCodec.outcome(send(leader, release));
        Outcome again = SlotCodec.outcome(send(leader, request(leader, id, 42, new SlotCommand.Release("n2", epoch, 3))));
        assertThat(once.status()).isEqualTo(Status.OK);
        assertThat(again).as("the same call id: the first answer again").isEqualTo(once);
        Outcome fresh = SlotCodec.outcome(send(leader, request(leader, id, 43, new SlotCommand.Release("n2", epoch, 3))));
        assertThat(fresh.status()).as("a new call id is applied: the grant is gone").isEqualTo(Status.STALE_EPOCH);
    }

    @Test
    void replicasRestartFromSnapshotsWithOrWithoutTheirStorageAndAgree() throws Exception {
        Random r = new Random(7);
        List<String> nodes = List.of("n1", "n2", "n3", "n4", "n5");
        List<Long> epochs = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String n = nodes.get(r.nextInt(nodes.size()));
            clock.addAndGet(r.nextInt(400));
            Outcome o = switch (r.nextInt(5)) {
                case 0 -> client.join(n);
                case 1 -> client.heartbeat(n);
                case 2, 3 -> client.acquire(n, new Ask(1 + r.nextInt(3), r.nextInt(100), r.nextInt(4) == 0,
                    r.nextInt(500), r.nextBoolean() ? 0 : r.nextInt(400))); // every field through log and snapshot
                default -> client.release(n, epochs.isEmpty() ? 1 : epochs.get(r.nextInt(epochs.size())), 3);
            };
            o.events().stream().filter(e -> e.type() == SlotEvent.Type.GRANTED).forEach(e -> epochs.add(e.epoch()));
        }
        assertThat(epochs).as("the random calls granted something").isNotEmpty();
        awaitReplicasIdentical();

        RaftServer leader = group.leader(group.group().getGroupId());
        List<RaftPeerId> followers = group.group().getPeers().stream().map(p -> p.getId())
            .filter(id -> !id.equals(leader.getId())).toList();
        for (RaftServer s : group.servers()) {
            assertThat(s.getDivision(group.group().getGroupId()).getStateMachine().takeSnapshot()).isPositive();
        }
        LedgerState before = machines.get(leader.getId()).state();

        group.kill(followers.get(0));
        group.start(followers.get(0)); // from its snapshot and log
        assertThat(machines.get(followers.get(0)).view().appliedIndex()).as("restored from the snapshot at start")
            .isPositive();
        group.kill(followers.get(1));
        client.join("n6"); // a write the wiped peer has never seen
        group.startEmpty(followers.get(1)); // nothing on disk: the leader installs its snapshot, then the log
        awaitReplicasIdentical();
        assertThat(machines.get(followers.get(1)).state().members()).extracting(LedgerState.Member::node)
            .contains("n6");
        assertThat(machines.get(followers.get(1)).state().epoch()).isEqualTo(before.epoch());
    }

    private static RaftClientRequest request(RaftServer leader, ClientId id, long callId, SlotCommand c) {
        return RaftClientRequest.newBuilder().setClientId(id).setServerId(leader.getId())
            .setGroupId(leader.getGroupIds().iterator().next()).setCallId(callId)
            .setMessage(Message.valueOf(ByteString.copyFrom(SlotCodec.command(c))))
            .setType(RaftClientRequest.writeRequestType()).build();
    }

    private static byte[] send(RaftServer leader, RaftClientRequest request) throws Exception {
        RaftClientReply reply = leader.submitClientRequestAsync(request).get(10, TimeUnit.SECONDS);
        assertThat(reply.isSuccess()).as("%s", reply.getException()).isTrue();
        return reply.getMessage().getContent().toByteArray();
    }

    /** Every running replica's whole ledger equal, once they have applied the same log (waits up to 10 s). */
    private void awaitReplicasIdentical() throws Exception {
        ReplicaAgreement.await(() -> group.servers().stream().map(s -> machines.get(s.getId())).toList(), 10);
    }
}
