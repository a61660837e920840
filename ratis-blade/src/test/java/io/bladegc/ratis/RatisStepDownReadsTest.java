package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.CodeInjectionForTesting;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins a Ratis bug (3.2.2, the version Blade builds against; unchanged in 3.3.0) that Blade works around: a
 * linearizable read still waiting for its ReadIndex heartbeat round when the leader steps down after
 * {@code transferLeadership} is never answered. The client only learns of it at its request timeout
 * ({@code raft.client.rpc.request.timeout}).
 *
 * <p>How it happens: at step-down, {@code LeaderStateImpl.stop()} fails the waiting ReadIndex listeners with a
 * {@code NotLeaderException}. {@code RaftServerImpl} turns only state-machine/read exceptions into replies, so the
 * exception goes to {@code GrpcClientProtocolService.RequestStreamObserver.responseError}. That method marks the
 * stream closed, then calls {@code GrpcUtil.wrapException}, which fails because a {@code NotLeaderException} holds
 * {@code RaftPeer}s, which are not {@code Serializable}. So nothing is sent and the server never ends the client's
 * gRPC stream. The two cases below differ only in the client API:
 * <ul>
 *   <li>{@code async().sendReadOnly} (ordered stream, no gRPC deadline): the read times out at the request timeout.
 *       The retry first resets the peer's proxy, and {@code GrpcUtil.shutdownManagedChannel} then waits its hard-coded
 *       3 s for a channel that still holds the dead stream. Only then is the read sent again: request timeout + 3 s
 *       (6 s with the default 3 s). Every other ordered call of that client waits behind it.</li>
 *   <li>{@code io().sendReadOnly} (one gRPC call per request, with a deadline): the call ends at its deadline, so the
 *       channel closes at once, and the read is retried after the request timeout alone.</li>
 * </ul>
 *
 * <p>The workaround Blade relies on: {@link SlotClient} uses only the blocking {@code io()} API, so a read caught at a
 * hand-off costs one request timeout and no channel shutdown. Its caller's deadline ({@code callTimeout}) and the
 * request timeout have to allow for that. It also retries {@code LeaderSteppingDownException} itself, because no
 * retry policy sees that exception.
 *
 * <p>The race is made deterministic. Followers hold the old leader's AppendEntries (through Ratis' own
 * {@link CodeInjectionForTesting} hook) from just before the read until the leader has stepped down, so the read is
 * sure to be waiting for heartbeat acknowledgements at step-down. Elections take 1-2 s here, so the hold cannot start
 * one. Without the hold, the same thing happened on about one transfer in ten under steady load (100 writes/s and 16
 * reads in flight, on loopback). The transfer itself is the ordinary one: the chosen follower is up to date, so the
 * leader sends it StartLeaderElection at once.
 *
 * <p><b>Expected to FAIL once Ratis fixes this</b>, for example by turning the {@code NotLeaderException} into a reply
 * in {@code RaftServerImpl.readException2Reply}, or by making {@code GrpcUtil.wrapException} cope with
 * non-serialisable exceptions. The read would then be retried at once, and the stalls asserted here would vanish. Then
 * the workaround can go: Blade could use ordered {@code async()} reads and would not need to budget a request timeout
 * per hand-off.
 */
class RatisStepDownReadsTest {
    private static final long REQUEST_TIMEOUT_MILLIS = 1_000;
    /** {@code GrpcUtil.shutdownManagedChannel}: {@code awaitTermination(3, SECONDS)}, hard-coded. */
    private static final long CHANNEL_SHUTDOWN_MILLIS = 3_000;
    private static final String APPEND_ENTRIES = "RaftServerImpl.appendEntries";

    @TempDir
    Path dir;
    private RaftGroup group;
    private final List<RaftServer> servers = new ArrayList<>();
    private RaftClient client;
    /** While set: followers of this group hold AppendEntries from this peer (at most 3 s each). */
    private final AtomicReference<RaftPeerId> holdFrom = new AtomicReference<>();

    /** A counter: writes add one, reads return it. */
    static final class Counter extends BaseStateMachine {
        private final AtomicLong value = new AtomicLong();

        @Override
        public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
            RaftProtos.LogEntryProto e = trx.getLogEntry();
            long v = value.incrementAndGet();
            updateLastAppliedTermIndex(e.getTerm(), e.getIndex());
            return CompletableFuture.completedFuture(Message.valueOf(Long.toString(v)));
        }

        @Override
        public CompletableFuture<Message> query(Message request) {
            return CompletableFuture.completedFuture(Message.valueOf(Long.toString(value.get())));
        }
    }

    @BeforeEach
    void start() throws Exception {
        // LocalRaftGroup for the peers, ports and properties; the servers are started here, with linearizable reads
        LocalRaftGroup local = new LocalRaftGroup(dir, 3, (g, id) -> gid -> new Counter());
        group = local.group();
        for (RaftPeer peer : group.getPeers()) {
            RaftProperties p = local.properties(peer);
            RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
            // elections well above the time followers hold the leader's heartbeats below: only the transfer moves it
            RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(1, TimeUnit.SECONDS));
            RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2, TimeUnit.SECONDS));
            RaftServer s = RaftServer.newBuilder().setServerId(peer.getId()).setGroup(group).setProperties(p)
                .setStateMachine(new Counter()).setOption(RaftStorage.StartupOption.FORMAT).build();
            s.start();
            servers.add(s);
        }
        RaftGroupId gid = group.getGroupId();
        CodeInjectionForTesting.put(APPEND_ENTRIES, (localId, leaderId, args) -> {
            RaftProtos.AppendEntriesRequestProto r = (RaftProtos.AppendEntriesRequestProto) args[1];
            if (!gid.toByteString().equals(r.getServerRequest().getRaftGroupId().getId())) {
                return false;
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (String.valueOf(leaderId).equals(String.valueOf(holdFrom.get())) && System.nanoTime() < until) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return true;
        });
        RaftProperties cp = local.properties(null);
        RaftClientConfigKeys.Rpc.setRequestTimeout(cp,
            TimeDuration.valueOf(REQUEST_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
        client = RaftClient.newBuilder().setRaftGroup(group).setProperties(cp)
            .setRetryPolicy(RetryPolicies.retryForeverNoSleep()).build();
        client.io().send(Message.valueOf("w")); // a leader, and the client has found it
        client.async().sendReadOnly(Message.valueOf("r")).get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        holdFrom.set(null);
        CodeInjectionForTesting.remove(APPEND_ENTRIES);
        if (client != null) {
            client.close();
        }
        for (RaftServer s : servers) {
            s.close();
        }
    }

    @Test
    void anOrderedAsyncReadPendingAtStepDownWaitsTheRequestTimeoutPlusTheChannelShutdown() throws Exception {
        long took = stallOfAReadPendingAtStepDown(c -> c.async().sendReadOnly(Message.valueOf("r")));
        assertThat(took).as("answered only after the request timeout and GrpcUtil.shutdownManagedChannel's 3 s")
            .isBetween(REQUEST_TIMEOUT_MILLIS + CHANNEL_SHUTDOWN_MILLIS - 100,
                REQUEST_TIMEOUT_MILLIS + CHANNEL_SHUTDOWN_MILLIS + 3_000);
    }

    @Test
    void aBlockingReadInTheSamePlaceWaitsTheRequestTimeoutOnly() throws Exception {
        long took = stallOfAReadPendingAtStepDown(c -> CompletableFuture.supplyAsync(() -> {
            try {
                return c.io().sendReadOnly(Message.valueOf("r"));
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }));
        assertThat(took).as("answered after the request timeout: the call's deadline ends it, no channel shutdown")
            .isBetween(REQUEST_TIMEOUT_MILLIS - 100, REQUEST_TIMEOUT_MILLIS + CHANNEL_SHUTDOWN_MILLIS - 1_000);
    }

    /**
     * Sends a read while the followers hold the leader's heartbeats, hands leadership to an up-to-date follower, and
     * releases the followers once the old leader has stepped down.
     *
     * @return how long the read took, in milliseconds
     */
    private long stallOfAReadPendingAtStepDown(Function<RaftClient, CompletableFuture<RaftClientReply>> read)
        throws Exception {
        RaftServer leader = leader();
        RaftServer.Division division = leader.getDivision(group.getGroupId());
        RaftPeerId target = group.getPeers().stream().map(RaftPeer::getId).filter(id -> !id.equals(leader.getId()))
            .findFirst().orElseThrow();
        // a write moves the commit index past every index a read has had acknowledged: the next read needs heartbeats
        assertThat(client.io().send(Message.valueOf("w")).isSuccess()).isTrue();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (matchIndex(division, target) < division.getRaftLog().getLastEntryTermIndex().getIndex()) {
            assertThat(System.nanoTime()).as("%s catches up", target).isLessThan(until);
            Thread.sleep(1);
        }

        holdFrom.set(leader.getId());
        long sent = System.nanoTime();
        CompletableFuture<RaftClientReply> pending = read.apply(client);
        Thread.sleep(100);
        assertThat(pending).as("the read waits for the held heartbeat acknowledgements").isNotDone();

        RaftClientReply transfer = leader.transferLeadership(new TransferLeadershipRequest(ClientId.randomId(),
            leader.getId(), group.getGroupId(), 1, target, 2_000));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (division.getInfo().isLeader() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        holdFrom.set(null);
        assertThat(division.getInfo().isLeader()).as("the old leader stepped down").isFalse();
        assertThat(transfer.isSuccess()).as("transfer to %s: %s", target, transfer.getException()).isTrue();

        RaftClientReply reply = pending.get(20, TimeUnit.SECONDS);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
        assertThat(reply.isSuccess()).as("the read is answered in the end, by a retry").isTrue();
        return took;
    }

    private RaftServer leader() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (RaftServer s : servers) {
                try {
                    if (s.getDivision(group.getGroupId()).getInfo().isLeaderReady()) {
                        return s;
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("no leader within 10 s");
    }

    /** The leader's match index for {@code follower} (as LeadershipHandoff.followerMatchIndices reads it), or -1. */
    private static long matchIndex(RaftServer.Division leader, RaftPeerId follower) {
        List<RaftProtos.ServerRpcProto> followers = leader.getInfo().getRoleInfoProto().getLeaderInfo()
            .getFollowerInfoList();
        long[] match = leader.getInfo().getFollowerMatchIndices();
        Map<RaftPeerId, Long> out = new HashMap<>();
        for (int i = 0; match != null && i < match.length && i < followers.size(); i++) {
            out.put(RaftPeerId.valueOf(followers.get(i).getId().getId()), match[i]);
        }
        return out.getOrDefault(follower, -1L);
    }
}
