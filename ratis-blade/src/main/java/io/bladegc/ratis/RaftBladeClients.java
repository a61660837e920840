package io.bladegc.ratis;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
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
 * RaftClientReply r = RaftBladeClients.read(client, Message.valueOf("GET"));
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
 *   <li><b>A retry policy that never gives up and backs off</b> ({@link #retryPolicy}): {@code NotLeaderException}
 *       and {@code LeaderNotReadyException} (the new leader not yet ready) are sent again, for as long as the
 *       hand-off takes, first after {@value #RETRY_SLEEP_MILLIS} ms, each later attempt of a call after twice as
 *       long, at most {@value #MAX_RETRY_SLEEP_MILLIS} ms, each pause drawn at random from its upper half: a long
 *       election then costs 200 request threads about a thousand attempts a second, not tens of thousands, and
 *       their attempts do not arrive in step.</li>
 *   <li><b>{@link #send}</b> for writes: while a transfer is under way the leader refuses new writes with
 *       {@link LeaderSteppingDownException}, which Ratis hands to the application instead of to the retry policy.
 *       When that refusal met the call's first attempt, the write never reached the log, and {@code send} sends it
 *       again. When it met a resend of an attempt that got no answer or was pending at a leader that stepped down,
 *       the first attempt may sit in the log already (Ratis checks "stepping down" before its retry cache): sent again
 *       as a new call it would be applied twice (seen in {@code HandOffClientIT}: eight increments applied twice, with
 *       the transferee lagging), so {@code send} sends that same call again ({@link CallReplay}) until a leader
 *       answers it, from its retry cache if it was applied. It learns which attempt Ratis resent from
 *       {@link #retryPolicy}, which Ratis' blocking client consults on the calling thread: use both together.</li>
 *   <li><b>{@link #send} and {@link #read} over a connection replaced under the call</b>: a shared client that
 *       reconnects to a peer (after another thread's call timed out there, or the peer stopped leading) closes the
 *       old connection while other threads are about to send on it, and those calls fail with
 *       {@link AlreadyClosedException} ({@code <client> is already CLOSED}: Ratis' {@code PeerProxyMap}), which the
 *       blocking API throws to the application without asking the retry policy (15 failed calls in a minute of
 *       Ratis' counter example with 200 request threads and Blade's hand-offs). Such an attempt was never sent: a read,
 *       or a write at its first attempt, is sent again as a new call; a write whose earlier attempt may have reached
 *       a leader is sent again as the same call, as above. An {@code AlreadyClosedException} because the client
 *       itself was closed is thrown at once.</li>
 * </ul>
 * Thread-safe; stateless.
 */
public final class RaftBladeClients {
    /** The request timeout {@link #properties} sets, milliseconds. */
    public static final long REQUEST_TIMEOUT_MILLIS = 500;
    /** The pause before a call refused or failed during a hand-off is sent again the first time, milliseconds. */
    public static final long RETRY_SLEEP_MILLIS = 10;
    /** The longest pause between two attempts of a call, milliseconds. */
    public static final long MAX_RETRY_SLEEP_MILLIS = 200;
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
     * @return a policy that sends a failed attempt again, forever, after {@link #retrySleepMillis} (and notes, for
     *     {@link #send}, which attempt of the call under way it sent again)
     */
    public static RetryPolicy retryPolicy() {
        return event -> {
            if (event instanceof ClientRetryEvent e) {
                RESENT.get()[0] = e.getRequest();
            }
            TimeDuration sleep = TimeDuration.valueOf(retrySleepMillis(event.getAttemptCount()), TimeUnit.MILLISECONDS);
            return () -> sleep;
        };
    }

    /**
     * @param attempt the call's attempt that failed, from 1
     * @return the pause before the next: {@value #RETRY_SLEEP_MILLIS} ms doubled for each attempt after the first, at
     *     most {@value #MAX_RETRY_SLEEP_MILLIS} ms, drawn at random from the upper half of that
     */
    static long retrySleepMillis(int attempt) {
        long ceiling = Math.min(MAX_RETRY_SLEEP_MILLIS, RETRY_SLEEP_MILLIS << Math.min(16, Math.max(0, attempt - 1)));
        return ceiling - ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }

    /**
     * Sends a write, and again while the leader refuses it because it is handing its leadership off
     * ({@link LeaderSteppingDownException}) or the client's connection was replaced under it
     * ({@link AlreadyClosedException}), every {@value #RETRY_SLEEP_MILLIS} ms for at most
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
            } catch (LeaderSteppingDownException | AlreadyClosedException e) {
                if (e instanceof AlreadyClosedException closed && !connectionReplaced(closed)) {
                    throw e;
                }
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

    /**
     * Sends a linearizable read ({@code client.io().sendReadOnly}), and again, as a new call, while it fails because
     * the client's connection to a peer was replaced under it ({@link AlreadyClosedException}; a read is never applied,
     * so sending it again is safe), every {@value #RETRY_SLEEP_MILLIS} ms for at most {@link #STEPPING_DOWN_LIMIT}.
     *
     * @param client a client built with {@link #retryPolicy} and {@link #properties}
     * @param query  the read
     * @return the reply
     * @throws IOException what the client threw otherwise, or once the limit passed
     */
    public static RaftClientReply read(RaftClient client, Message query) throws IOException {
        long deadline = System.nanoTime() + STEPPING_DOWN_LIMIT.toNanos();
        while (true) {
            try {
                return client.io().sendReadOnly(query);
            } catch (AlreadyClosedException e) {
                if (!connectionReplaced(e) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                CallReplay.pause(e);
            }
        }
    }

    /**
     * @return whether the call failed because the client closed its connection to a peer to open a new one, before
     *     this attempt was sent (Ratis 3.2.2's {@code PeerProxyMap}: {@code <client> is already CLOSED}), rather than
     *     because the client itself was closed ({@code ... is closed.})
     */
    static boolean connectionReplaced(AlreadyClosedException e) {
        return e.getMessage() != null && e.getMessage().contains(" is already ");
    }
}
