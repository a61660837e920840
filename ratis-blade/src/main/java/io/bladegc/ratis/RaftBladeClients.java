package io.bladegc.ratis;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * What a Ratis application's clients need so that Blade's leadership hand-offs cost them no failed call and no
 * multi-second stall, with a stock {@link org.apache.ratis.client.RaftClient}:
 * <pre>{@code
 * RaftClient client = RaftClient.newBuilder().setRaftGroup(group)
 *     .setProperties(RaftBladeClients.properties(new RaftProperties()))
 *     .setRetryPolicy(RaftBladeClients.retryPolicy())
 *     .build();
 * RaftClientReply w = RaftBladeClients.send(client, Message.valueOf("INCREMENT"));
 * RaftClientReply r = client.io().sendReadOnly(Message.valueOf("GET"));
 * }</pre>
 * Build one client per process and share it among its request threads: it is thread-safe, and each blocking call is
 * a gRPC call of its own (a slow call holds only itself). A shared client learns a new leader from the first call
 * redirected and sends every later call there; clients of their own each learn it on their own, and meanwhile go on
 * reading from the peer they took for the leader, which Blade may then make collect (in raft-kv, with a client per
 * call, for up to ten seconds after a hand-off).
 *
 * <p>Why each piece, in Ratis 3.2.2 (unchanged in 3.3.0; {@code RatisStepDownReadsTest} pins the read bug):
 * <ul>
 *   <li><b>The blocking API, {@code io()}</b>, not {@code async()}: a linearizable read waiting for its ReadIndex round
 *       when the leader steps down is never answered (the server cannot serialise the {@code NotLeaderException} it
 *       fails it with). A blocking call ends at its deadline and is retried after the request timeout; an async call
 *       also waits out a hard-coded 3 s shutdown of the channel, and every later call of that client waits behind it.
 *       An async client whose retry policy gave up once fails every later call ({@code AlreadyClosedException}).</li>
 *   <li><b>A request timeout of {@value #REQUEST_TIMEOUT_MILLIS} ms</b> ({@link #properties}): that is how long such a
 *       read waits before it is sent again to the new leader; Ratis' default is 3 s. Shorter is worse: with 100 ms
 *       for reads, raft-kv's clients timed out by the thousand in the first seconds of a fresh cluster, each timeout
 *       resetting its connection, and calls then stalled for up to 15 s, with no collection at all in one arm
 *       ({@code benchmarks/RESULTS.md}, 2026-11-25).</li>
 *   <li><b>A retry policy that never gives up</b> ({@link #retryPolicy}): {@code NotLeaderException} and
 *       {@code LeaderNotReadyException} (the new leader not yet ready) are sent again after
 *       {@value #RETRY_SLEEP_MILLIS} ms, for as long as the hand-off takes.</li>
 *   <li><b>{@link #send}</b> for writes: while a transfer is under way the leader refuses new writes with
 *       {@link LeaderSteppingDownException}, which Ratis hands to the application instead of to the retry policy.
 *       When that refusal met the call's first attempt, the write never reached the log, and {@code send} sends it
 *       again. When it met a resend of an attempt that got no answer or was pending at a leader that stepped down,
 *       the first attempt may sit in the log already (Ratis checks "stepping down" before its retry cache): sent again
 *       as a new call it would be applied twice (seen in {@code HandOffClientIT}: eight increments applied twice, with
 *       the transferee lagging), so {@code send} sends that same call again ({@link CallReplay}) until a leader
 *       answers it, from its retry cache if it was applied. It learns which attempt Ratis resent from
 *       {@link #retryPolicy}, which Ratis' blocking client consults on the calling thread: use both together.</li>
 * </ul>
 * Thread-safe; stateless.
 */
public final class RaftBladeClients {
    /** The request timeout {@link #properties} sets, milliseconds. */
    public static final long REQUEST_TIMEOUT_MILLIS = 500;
    /** The pause before a call refused or failed during a hand-off is sent again, milliseconds. */
    public static final long RETRY_SLEEP_MILLIS = 10;
    /** How long {@link #send} keeps sending a write that is refused because leadership is moving. */
    public static final Duration STEPPING_DOWN_LIMIT = Duration.ofSeconds(10);

    private RaftBladeClients() {
    }

    /**
     * @param transport the client's transport settings (gRPC, TLS, ...); not changed
     * @return a copy with the request timeout set to {@value #REQUEST_TIMEOUT_MILLIS} ms
     */
    public static RaftProperties properties(RaftProperties transport) {
        RaftProperties p = new RaftProperties(transport);
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(REQUEST_TIMEOUT_MILLIS,
            TimeUnit.MILLISECONDS));
        return p;
    }

    /** The attempt of the blocking call under way on this thread that {@link #retryPolicy} last sent again, or null. */
    private static final ThreadLocal<RaftClientRequest[]> RESENT =
        ThreadLocal.withInitial(() -> new RaftClientRequest[1]);

    /**
     * @return a policy that sends a failed attempt again after {@value #RETRY_SLEEP_MILLIS} ms, forever (and notes, for
     *     {@link #send}, which attempt of the call under way it sent again)
     */
    public static RetryPolicy retryPolicy() {
        RetryPolicy forever = RetryPolicies.retryForeverWithSleep(TimeDuration.valueOf(RETRY_SLEEP_MILLIS,
            TimeUnit.MILLISECONDS));
        return event -> {
            if (event instanceof ClientRetryEvent e) {
                RESENT.get()[0] = e.getRequest();
            }
            return forever.handleAttemptFailure(event);
        };
    }

    /**
     * Sends a write, and again while the leader refuses it because it is handing its leadership off
     * ({@link LeaderSteppingDownException}), every {@value #RETRY_SLEEP_MILLIS} ms for at most
     * {@link #STEPPING_DOWN_LIMIT}. A refusal of the call's first attempt means the write never reached the log: it
     * is sent again as a new call. A refusal of an attempt that the retry policy sent again (the earlier one got no
     * answer, or was pending at a leader that stepped down) means it may be in the log already: it is sent again as
     * the same call (same client and call id), which the leader that applied it answers from its retry cache, so it
     * is applied once. Needs a client built with {@link #retryPolicy}, which Ratis' blocking client consults on the
     * calling thread.
     *
     * @param client  a client built with {@link #retryPolicy}; its blocking API sends the write
     * @param message the write
     * @return the reply
     * @throws IOException what the client threw otherwise; the refusal when the limit passed without an answer
     */
    public static RaftClientReply send(RaftClient client, Message message) throws IOException {
        long deadline = System.nanoTime() + STEPPING_DOWN_LIMIT.toNanos();
        RaftClientRequest[] resent = RESENT.get();
        while (true) {
            resent[0] = null;
            try {
                return client.io().send(message);
            } catch (LeaderSteppingDownException e) {
                RaftClientRequest attempt = resent[0];
                resent[0] = null;
                if (attempt != null) {
                    return new CallReplay(client, attempt).untilAnswered(deadline, e);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                CallReplay.pause(e);
            }
        }
    }
}
