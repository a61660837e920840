package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.testkit.LocalRaftGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
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
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.CodeInjectionForTesting;
import org.apache.ratis.util.FileUtils;
import org.apache.ratis.util.TimeDuration;

/**
 * A linearizable read made sure to be waiting for its ReadIndex heartbeat round when the leader steps down after
 * {@code transferLeadership}: three real Ratis servers in this JVM (gRPC on loopback, linearizable reads, elections
 * at 1-2 s), a counter state machine, and one client whose retry policy records why each attempt was retried.
 *
 * <p>The race is made deterministic. Followers hold the old leader's AppendEntries (through Ratis' own
 * {@link CodeInjectionForTesting} hook) from just before the read until the leader has stepped down, so the read is
 * sure to be waiting for heartbeat acknowledgements at step-down. Elections take 1-2 s here, so the hold cannot start
 * one. Without the hold, the same thing happened on about one transfer in ten under steady load (100 writes/s and 16
 * reads in flight, on loopback). The transfer itself is the ordinary one: the chosen follower is up to date, so the
 * leader sends it StartLeaderElection at once.
 */
final class StepDownReadRace implements AutoCloseable {
    /** The client's request timeout. */
    static final long REQUEST_TIMEOUT_MILLIS = 1_000;
    /**
     * A retry without a cause: the blocking client's answer to a {@code NotLeaderException} or
     * {@code LeaderNotReadyException} reply.
     */
    static final String REDIRECT = "redirected by a reply";
    private static final String APPEND_ENTRIES = "RaftServerImpl.appendEntries";

    private final Path dir;
    private final RaftGroup group;
    private final List<RaftServer> servers = new ArrayList<>();
    private final RaftProperties clientProperties;
    private final RaftClient client;
    /** While set: followers of this group hold AppendEntries from this peer (at most 3 s each). */
    private final AtomicReference<RaftPeerId> holdFrom = new AtomicReference<>();
    private final List<String> retried = new CopyOnWriteArrayList<>();

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

    /**
     * Starts the servers, with their storage in a new temporary directory that {@link #close()} deletes, and the
     * client, and makes sure the client has found the leader.
     */
    StepDownReadRace() throws Exception {
        dir = Files.createTempDirectory("blade-step-down-reads-");
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
        clientProperties = local.properties(null);
        RaftClientConfigKeys.Rpc.setRequestTimeout(clientProperties,
            TimeDuration.valueOf(REQUEST_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
        client = RaftClient.newBuilder().setRaftGroup(group).setProperties(clientProperties)
            .setRetryPolicy(recordingRetries()).build();
        client.io().send(Message.valueOf("w")); // a leader, and the client has found it
        client.async().sendReadOnly(Message.valueOf("r")).get(10, TimeUnit.SECONDS);
    }

    RaftClient client() {
        return client;
    }

    RaftGroup group() {
        return group;
    }

    /**
     * @param first the peer the client takes for the leader until told otherwise
     * @return a new client like {@link #client()}, retrying forever at once, that asks {@code first} first; the
     *         caller closes it
     */
    RaftClient clientAsking(RaftPeerId first) {
        return RaftClient.newBuilder().setRaftGroup(group).setProperties(clientProperties).setLeaderId(first)
            .setRetryPolicy(recordingRetries()).build();
    }

    /** Retries forever at once, recording why in {@link #retried}. */
    private RetryPolicy recordingRetries() {
        RetryPolicy forever = RetryPolicies.retryForeverNoSleep();
        return event -> {
            retried.add(event.getCause() == null ? REDIRECT : event.getCause().getClass().getSimpleName());
            return forever.handleAttemptFailure(event);
        };
    }

    /** Followers hold every AppendEntries from {@code peer} (at most 3 s each) until {@link #release()}. */
    void holdAppendsFrom(RaftPeerId peer) {
        holdFrom.set(peer);
    }

    void release() {
        holdFrom.set(null);
    }

    /** Forgets the retry causes recorded so far. */
    void clearRetried() {
        retried.clear();
    }

    /**
     * @return why each failed attempt of the client's calls was retried, in order: the simple name of the cause's
     *         class, or {@link #REDIRECT}
     */
    List<String> retried() {
        return List.copyOf(retried);
    }

    @Override
    public void close() throws Exception {
        holdFrom.set(null);
        CodeInjectionForTesting.remove(APPEND_ENTRIES);
        client.close();
        for (RaftServer s : servers) {
            s.close();
        }
        FileUtils.deleteFully(dir);
    }

    /** Races a read against a step-down at most this many times, when a transfer did not complete. */
    static final int ATTEMPTS = 3;

    /**
     * Sends a read while the followers hold the leader's heartbeats, hands leadership to an up-to-date follower, and
     * releases the followers once the old leader has stepped down. The retry causes recorded before it are cleared.
     *
     * <p>A transfer that does not complete within its 2 s is tried again from the start (at most {@value #ATTEMPTS}
     * attempts in all), each failure printed with every peer's state. Raft's leadership transfer is best effort (the
     * Raft thesis, section 3.10: the leader aborts it after an election timeout and resumes), and whether it completes
     * is not what the callers check: they check what happens to a read pending at a step-down, and a transfer that
     * did not complete made none. (Seen once in CI, 2026-11-26: {@code TIMED_OUT}, the old leader still leading at
     * the timeout; not reproduced in 100 runs under a busy loop since.)
     *
     * @return how long the read took, from its sending and from the old leader's step-down
     */
    Took readPendingAtStepDown(Function<RaftClient, CompletableFuture<RaftClientReply>> read) throws Exception {
        List<String> failed = new ArrayList<>();
        while (true) {
            try {
                return readPendingAtOneStepDown(read);
            } catch (TransferNotCompleted e) {
                failed.add(e.getMessage());
                System.err.println("step-down read race, attempt " + failed.size() + ": " + e.getMessage());
                assertThat(failed).as("transfers that did not complete").hasSizeLessThan(ATTEMPTS);
            }
        }
    }

    /** A transfer that did not complete: the race did not happen. */
    private static final class TransferNotCompleted extends Exception {
        TransferNotCompleted(String message) {
            super(message);
        }
    }

    private Took readPendingAtOneStepDown(Function<RaftClient, CompletableFuture<RaftClientReply>> read)
            throws Exception {
        RaftServer leader = leader();
        RaftServer.Division division = leader.getDivision(group.getGroupId());
        RaftPeerId target = group.getPeers().stream().map(RaftPeer::getId).filter(id -> !id.equals(leader.getId()))
            .findFirst().orElseThrow();
        // a write moves the commit index past every index a read has had acknowledged: the next read needs heartbeats
        assertThat(client.io().send(Message.valueOf("w")).isSuccess()).isTrue();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long last = division.getRaftLog().getLastEntryTermIndex().getIndex();
        while (LeadershipHandoff.followerMatchIndices(division).getOrDefault(target, -1L) < last) {
            assertThat(System.nanoTime()).as("%s catches up", target).isLessThan(until);
            Thread.sleep(1);
        }
        retried.clear();

        holdFrom.set(leader.getId());
        long sent = System.nanoTime();
        CompletableFuture<RaftClientReply> pending = read.apply(client);
        Thread.sleep(100);
        assertThat(pending).as("the read waits for the held heartbeat acknowledgements").isNotDone();

        RaftClientReply transfer = leader.transferLeadership(new TransferLeadershipRequest(ClientId.randomId(),
            leader.getId(), group.getGroupId(), 1, target, 2_000));
        if (!transfer.isSuccess()) {
            String state = state();
            holdFrom.set(null);
            pending.get(20, TimeUnit.SECONDS); // answered in the end; not to be mixed with the next attempt's calls
            throw new TransferNotCompleted("transfer " + leader.getId() + " -> " + target + ": "
                + transfer.getException() + "; then " + state);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (division.getInfo().isLeader() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        long steppedDown = System.nanoTime();
        holdFrom.set(null);
        assertThat(division.getInfo().isLeader()).as("the old leader stepped down").isFalse();

        RaftClientReply reply = pending.get(20, TimeUnit.SECONDS);
        long answered = System.nanoTime();
        assertThat(reply.isSuccess()).as("the read is answered in the end, by a retry").isTrue();
        return new Took(TimeUnit.NANOSECONDS.toMillis(answered - sent),
            TimeUnit.NANOSECONDS.toMillis(answered - steppedDown));
    }

    /**
     * @param sinceSent      milliseconds from sending the read to its answer
     * @param sinceStepDown  milliseconds from the old leader's step-down (seen by polling every millisecond) to it
     */
    record Took(long sinceSent, long sinceStepDown) {
    }

    /** @return each peer's role, term, leader and last log entry, and the match indices a leader sees, for a failure */
    String state() {
        StringBuilder out = new StringBuilder();
        for (RaftServer s : servers) {
            try {
                RaftServer.Division d = s.getDivision(group.getGroupId());
                out.append(s.getId()).append(' ').append(d.getInfo().getCurrentRole()).append(" term ")
                    .append(d.getInfo().getCurrentTerm()).append(" leader ").append(d.getInfo().getLeaderId())
                    .append(" last ").append(d.getRaftLog().getLastEntryTermIndex());
                if (d.getInfo().isLeader()) {
                    out.append(" match ").append(LeadershipHandoff.followerMatchIndices(d));
                }
                out.append("; ");
            } catch (IOException e) {
                out.append(s.getId()).append(' ').append(e).append("; ");
            }
        }
        return out.toString();
    }

    RaftServer leader() throws InterruptedException {
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
}
