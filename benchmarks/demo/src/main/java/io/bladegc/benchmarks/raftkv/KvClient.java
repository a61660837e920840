package io.bladegc.benchmarks.raftkv;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.RaftRetryFailureException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

/**
 * A client of the replicated key-value store: writes go through the Raft log, reads are linearizable
 * ({@code sendReadOnly}, answered once the reading peer has applied the leader's commit index).
 *
 * <p>Every call ends on its own: each attempt waits at most the request timeout (default
 * {@link #DEFAULT_REQUEST_TIMEOUT}), and a call makes at most {@code attempts} attempts (default
 * {@link #DEFAULT_ATTEMPTS}, {@link #RETRY_SLEEP} apart), following the leader as it moves. A retried write keeps its
 * call id, so the servers' retry cache applies it at most once. A write refused by a leader that is stepping down
 * (as Blade makes it before it collects) did not reach that leader's log and is sent again as a new call, within the
 * same bound of attempts. (Should Ratis itself have retried that call after an earlier attempt got no answer, that
 * earlier attempt may have been logged; the new call could then apply the write twice. This needs a lost answer and a
 * step-down on the same call.) When the attempts run out the call throws an {@link IOException} saying so; its outcome
 * is then unknown for a write (it may still be applied).
 *
 * <p>Thread-safe: any number of threads may call at once; {@link #close()} ends all use.
 */
public final class KvClient implements AutoCloseable {
    /** How long one attempt waits for its answer by default. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(2);
    /** How many attempts one call makes by default. */
    public static final int DEFAULT_ATTEMPTS = 30;
    /** The pause between two attempts of one call. */
    public static final Duration RETRY_SLEEP = Duration.ofMillis(100);

    private final RaftClient client;
    private final int attempts;

    private KvClient(RaftClient client, int attempts) {
        this.client = client;
        this.attempts = attempts;
    }

    /** {@link #connect(RaftGroup, Duration, int)} with the defaults. */
    public static KvClient connect(RaftGroup group) {
        return connect(group, DEFAULT_REQUEST_TIMEOUT, DEFAULT_ATTEMPTS);
    }

    /**
     * @param group          the store's group ({@link KvGroup#parse})
     * @param requestTimeout how long one attempt waits at most
     * @param attempts       how many attempts one call makes at most, at least 1
     * @return a client of that group; no connection is made before the first call
     */
    public static KvClient connect(RaftGroup group, Duration requestTimeout, int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1: " + attempts);
        }
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties,
            TimeDuration.valueOf(requestTimeout.toMillis(), TimeUnit.MILLISECONDS));
        return new KvClient(RaftClient.newBuilder()
            .setRaftGroup(group)
            .setProperties(properties)
            .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts,
                TimeDuration.valueOf(RETRY_SLEEP.toMillis(), TimeUnit.MILLISECONDS)))
            .build(), attempts);
    }

    /** @return the value {@code key} held before, null if none */
    public String put(String key, String value) throws IOException {
        return KvReply.value(write(new KvCommand.Put(key, value)));
    }

    /** @return the value {@code key} held before its removal, null if none */
    public String delete(String key) throws IOException {
        return KvReply.value(write(new KvCommand.Delete(key)));
    }

    /** @return the value of {@code key}, null if none (linearizable) */
    public String get(String key) throws IOException {
        return KvReply.value(read(new KvCommand.Get(key), null));
    }

    /** @return how many keys the store holds (linearizable) */
    public int size() throws IOException {
        return KvReply.count(read(new KvCommand.Size(), null));
    }

    /**
     * Counts the keys as peer {@code peer} has them, still linearizable: that peer answers once it has applied the
     * leader's commit index. A peer that is catching up therefore answers late or not at all (then IOException).
     *
     * @return how many keys the store holds
     */
    public int sizeAt(RaftPeerId peer) throws IOException {
        return KvReply.count(read(new KvCommand.Size(), peer));
    }

    /**
     * Writes {@code key-0 .. key-(count-1)} in one log entry ({@link KvCommand.Preload}).
     *
     * @return how many keys the store holds afterwards
     */
    public int preload(int count, int valueBytes) throws IOException {
        return KvReply.count(write(new KvCommand.Preload(0, count, valueBytes)));
    }

    private ByteString write(KvCommand command) throws IOException {
        return content(command, () -> client.io().send(message(command)));
    }

    private ByteString read(KvCommand command, RaftPeerId peer) throws IOException {
        Message message = message(command);
        return content(command, () -> peer == null
            ? client.io().sendReadOnly(message) : client.io().sendReadOnly(message, peer));
    }

    private static Message message(KvCommand command) {
        return Message.valueOf(ByteString.copyFrom(command.encode()));
    }

    private interface Call {
        RaftClientReply run() throws IOException;
    }

    /**
     * Runs {@code call}; a write the leader refused because it is stepping down (refused before it reached the log)
     * is sent again, as a new call, up to {@link #attempts} times in all.
     */
    private ByteString content(KvCommand command, Call call) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Exception refusal;
            try {
                RaftClientReply reply = call.run();
                if (reply.isSuccess()) {
                    return reply.getMessage().getContent();
                }
                refusal = reply.getException();
            } catch (LeaderSteppingDownException e) {
                refusal = e;
            } catch (RaftRetryFailureException | TimeoutIOException e) {
                throw new IOException(label(command) + ": no answer from the store within the retry policy ("
                    + e.getMessage() + ")" + (command.isWrite() ? "; the write's outcome is unknown" : ""), e);
            } catch (IOException e) {
                throw new IOException(label(command) + " failed: " + e.getMessage(), e);
            }
            if (!(refusal instanceof LeaderSteppingDownException)) {
                throw new IOException(label(command) + " failed: " + refusal, refusal);
            }
            if (attempt >= attempts) {
                throw new IOException(label(command) + ": refused " + attempts + " times by leaders stepping down; "
                    + "last: " + refusal.getMessage(), refusal);
            }
            pause();
        }
    }

    /** The command as text, cut to a length fit for a message. */
    private static String label(KvCommand command) {
        String text = command.toString();
        return text.length() <= 120 ? text : text.substring(0, 117) + "...";
    }

    private static void pause() throws InterruptedIOException {
        try {
            Thread.sleep(RETRY_SLEEP.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted between attempts");
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
    }
}
