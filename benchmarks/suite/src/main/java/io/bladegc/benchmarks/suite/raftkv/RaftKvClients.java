package io.bladegc.benchmarks.suite.raftkv;

import io.bladegc.ratis.RaftBladeClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiConsumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.retry.RetryPolicy;

/**
 * The one place the {@code raft-kv} load generator's Ratis client is built ({@link #create}) and makes its calls
 * ({@link #send}, on threads of {@link #call}): a stock {@link RaftClient} configured as Blade for Raft tells its users
 * ({@link RaftBladeClients}: the blocking API, a {@value RaftBladeClients#REQUEST_TIMEOUT_MILLIS} ms request
 * timeout, a retry policy that sends a failed attempt again after {@value RaftBladeClients#RETRY_SLEEP_MILLIS} ms, backs
 * off and never gives up, writes sent again while the leader steps down, reads and writes sent again when the client
 * replaced its connection under them). A blocking call holds a thread: calls run on {@value #REQUEST_THREADS} daemon
 * threads, as an application serves its requests (docs/raft.md, and Ratis' counter example as a user runs it); a call
 * due while all are busy waits for one, its latency counted from its due time all the same. The load generator judges
 * a call unanswered {@link #DEADLINE} after it was made (timed out); the client itself never gives up. One client
 * serves every call (it is thread-safe, and each blocking call is a gRPC call of its own). Stateless but for the
 * threads.
 */
public final class RaftKvClients {
    /** After this long a call counts as timed out (it may still be answered later; that no longer counts). */
    static final Duration DEADLINE = Duration.ofSeconds(10);

    /**
     * Threads making calls. A thread per call under way, as until 2026-11-28, let a stall feed itself: 11,860 calls
     * without an answer each kept sending attempts again (298,108 in one window), and the peers, starved by them,
     * went on losing leaders for the whole window.
     */
    public static final int REQUEST_THREADS = 200;

    private static final ExecutorService CALLS = Executors.newFixedThreadPool(REQUEST_THREADS, r -> {
        Thread t = new Thread(r, "raft-kv-call");
        t.setDaemon(true);
        return t;
    });

    private RaftKvClients() {
    }

    /**
     * @param group    the store's group
     * @param onResend told of every attempt the policy sends again: the attempt (its client id, the peer it went to)
     *                 and why it failed (called on Ratis's threads)
     * @return a client of {@code group} configured by {@link RaftBladeClients}; no connection is made before its first
     *     call
     */
    static RaftClient create(RaftGroup group, BiConsumer<RaftClientRequest, Throwable> onResend) {
        RetryPolicy policy = RaftBladeClients.retryPolicy();
        return RaftClient.newBuilder().setRaftGroup(group)
            .setProperties(RaftBladeClients.properties(new RaftProperties()))
            .setRetryPolicy(event -> {
                RetryPolicy.Action action = policy.handleAttemptFailure(event);
                if (action.shouldRetry() && event instanceof ClientRetryEvent e) {
                    onResend.accept(e.getRequest(), e.getCause());
                }
                return action;
            })
            .build();
    }

    /**
     * Sends {@code message} on {@code client}: a write through {@link RaftBladeClients#send}, a linearizable read
     * through {@link RaftBladeClients#read}. Blocks.
     *
     * @return the answer
     * @throws IOException what the call ended with
     */
    static RaftClientReply send(RaftClient client, Message message, boolean write) throws IOException {
        return write ? RaftBladeClients.send(client, message) : RaftBladeClients.read(client, message);
    }

    /** A blocking call. */
    interface Call {
        RaftClientReply run() throws IOException;
    }

    /**
     * Runs {@code call} on a thread of the call pool, once one is free.
     *
     * @return its answer; failed with the {@link IOException} it ended with
     */
    static CompletableFuture<RaftClientReply> call(Call call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.run();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, CALLS);
    }

    /**
     * @param failure why an attempt is sent again, as the retry policy was told
     * @return whether it was a leader change: the blocking API tells its retry policy no cause when the reply was a
     *     {@code NotLeaderException} or {@code LeaderNotReadyException} (Ratis 3.2.2 {@code BlockingImpl}: such a reply
     *     only redirects the client, and the retry event is built without an exception); the async API passes them
     */
    static boolean isLeaderChange(Throwable failure) {
        return failure == null || failure instanceof NotLeaderException || failure instanceof LeaderNotReadyException;
    }
}
