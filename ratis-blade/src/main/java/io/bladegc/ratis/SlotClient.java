package io.bladegc.ratis;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Calls on the replicated slot ledger of one group, through a Ratis client: writes go to the leader and are answered
 * once committed and applied; {@link #view()} is a read. A call that fails (no leader within the timeout, the group
 * unreachable) throws {@link IOException}; the client's retries of one call carry the same call id, so a retried
 * write is answered from the servers' retry cache, never applied twice.
 *
 * <p>Thread-safe.
 */
public final class SlotClient implements AutoCloseable {
    private final RaftClient client;
    private final Duration timeout;
    /** Runs the blocking calls, so that a caller waits at most the timeout; a call still out then is interrupted. */
    private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "blade-slot-call");
        t.setDaemon(true);
        return t;
    });

    private SlotClient(RaftClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
    }

    /**
     * @param slotGroup  the slot group (see {@link RaftBlade#slotGroup})
     * @param properties the transport settings (the same as the servers'); the request timeout is set to
     *                   {@value RaftBladeClients#REQUEST_TIMEOUT_MILLIS} ms on a copy
     * @param timeout    how long one call may take, retries included
     * @return a client; close it
     */
    public static SlotClient connect(RaftGroup slotGroup, RaftProperties properties, Duration timeout) {
        RaftClient c = RaftClient.newBuilder().setRaftGroup(slotGroup)
            .setProperties(RaftBladeClients.properties(properties)) // a read caught at a hand-off: retried in 500 ms
            .setRetryPolicy(RaftBladeClients.retryPolicy()).build(); // ends with the caller's wait (interrupt)
        return new SlotClient(c, timeout);
    }

    /** {@code SlotLedger.join}: adds or refreshes a member. */
    public Outcome join(String node) throws IOException {
        return write(new SlotCommand.Join(node));
    }

    /** {@code SlotLedger.heartbeat}: marks a member alive; {@code UNKNOWN_NODE} means join first. */
    public Outcome heartbeat(String node) throws IOException {
        return heartbeat(node, -1, -1);
    }

    /**
     * {@code SlotLedger.heartbeat}, saying when the member expects its JVM to collect, and to run a full collection.
     *
     * @param dueInMillis     the time left before the member's JVM collects on its own, -1 when unknown
     * @param fullDueInMillis the time left before the member's JVM runs a full collection on its own, -1 when unknown
     */
    public Outcome heartbeat(String node, long dueInMillis, long fullDueInMillis) throws IOException {
        return write(new SlotCommand.Heartbeat(node, dueInMillis, fullDueInMillis));
    }

    /** {@code SlotLedger.leave}: removes a member; a grant it holds is given back. */
    public Outcome leave(String node) throws IOException {
        return write(new SlotCommand.Leave(node));
    }

    /** {@code SlotLedger.acquire}: asks for a slot; idempotent per node and GC id. */
    public Outcome acquire(String node, long gcId, long leadMillis) throws IOException {
        return acquire(node, Ask.young(gcId, leadMillis));
    }

    /** {@code SlotLedger.acquire} with the whole request: its kind, expected hold and a full collection offered. */
    public Outcome acquire(String node, Ask ask) throws IOException {
        return write(new SlotCommand.Acquire(node, ask));
    }

    /** {@code SlotLedger.release}: gives a grant back; another epoch than the holder's is {@code STALE_EPOCH}. */
    public Outcome release(String node, long epoch, long pauseMillis) throws IOException {
        return write(new SlotCommand.Release(node, epoch, pauseMillis));
    }

    /** {@code SlotLedger.renew}: extends a grant by a lease from now (the leader's clock). */
    public Outcome renew(String node, long epoch) throws IOException {
        return write(new SlotCommand.Renew(node, epoch));
    }

    /** {@code SlotLedger.cancel}: withdraws a request and gives back a grant made for it. */
    public Outcome cancel(String node, long gcId) throws IOException {
        return write(new SlotCommand.Cancel(node, gcId));
    }

    /** @return what time alone decided since the last entry ({@link Outcome#events()}) */
    public Outcome tick() throws IOException {
        return write(new SlotCommand.Tick());
    }

    /**
     * @param client  a client of the slot group, whose retry policy ends on its own; closed with this one
     * @param timeout how long one call may take, retries included
     * @return a client over it
     */
    static SlotClient of(RaftClient client, Duration timeout) {
        return new SlotClient(client, timeout);
    }

    /** @return the ledger as the leader has applied it (a linearizable read when the servers are set up for one) */
    public SlotGroupView view() throws IOException {
        Message m = message(new SlotCommand.View());
        return SlotCodec.view(await(() -> RaftBladeClients.read(client, m), "view"));
    }

    /** A write, sent again while a leader stepping down refuses it before it reached the log (Blade's hand-offs). */
    private Outcome write(SlotCommand c) throws IOException {
        Message m = message(c);
        return SlotCodec.outcome(await(() -> RaftBladeClients.send(client, m), c.op() + " " + c.node()));
    }

    private static Message message(SlotCommand c) {
        return Message.valueOf(ByteString.copyFrom(SlotCodec.command(c)));
    }

    private byte[] await(Callable<RaftClientReply> send, String what) throws IOException {
        RaftClientReply reply;
        Future<RaftClientReply> call;
        try {
            call = calls.submit(send);
        } catch (RejectedExecutionException e) {
            throw new IOException("slot client closed", e);
        }
        try {
            reply = call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new IOException("slot group: " + what + " not answered within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            throw new IOException("slot group: " + what + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("slot group: " + what + " interrupted", e);
        }
        if (!reply.isSuccess()) {
            throw new IOException("slot group: " + what + " refused: " + reply.getException(), reply.getException());
        }
        return reply.getMessage().getContent().toByteArray();
    }

    @Override
    public void close() throws IOException {
        calls.shutdownNow();
        client.close();
    }
}
