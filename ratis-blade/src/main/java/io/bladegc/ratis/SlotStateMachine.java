package io.bladegc.ratis;

import io.bladegc.api.slot.Invitations;
import io.bladegc.api.slot.LedgerState;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotLedger;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.Status;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.MD5FileUtil;

/**
 * The GC-slot ledger ({@link SlotLedger}) as a Ratis state machine: every replica applies the same commands in the
 * same order to the same pure ledger, so every replica holds the same grants, queue and epochs.
 *
 * <p>Time: the ledger's "now" for a command is the leader's clock when it proposed the entry ({@link
 * #startTransaction}, written into the entry), never a replica's clock at apply; so leases end, members are lost and
 * queued requests are granted at the same log position on every replica, also when one replays its log hours later.
 * Time advances only through entries; peers heartbeat (a {@link SlotCommand.Heartbeat} entry each) often enough
 * that leases end on time. A new leader whose clock is behind cannot move the ledger back (the ledger ignores an
 * earlier now); leases then last longer, which is safe. Leases assume peers' clocks agree to within the margin a peer
 * keeps before its deadline (one host, or NTP).
 *
 * <p>Duplicates: a client that retries a call (same client id and call id) is answered from Ratis' retry cache
 * without a second apply; the ledger's own calls are idempotent besides ({@code acquire} per node and GC id, a
 * repeated release is {@code STALE_EPOCH}).
 *
 * <p>Snapshots: the whole ledger ({@link SlotLedger#state()}) and when each peer last collected, in one file; a replica
 * restarts from its latest snapshot and the log after it, or receives the leader's.
 *
 * <p>Invitations: beside the ledger each replica keeps {@link Invitations} from the entries it applies, and a
 * heartbeat's answer invites the peer that would come due during another's near full collection to take its young
 * collection now ({@link Outcome#invitedBy()}). Not in snapshots: a replica that restarted learns it anew from the
 * next heartbeats and full collections, as the coordinator does.
 *
 * <p>Thread-safety: Ratis applies entries one at a time; queries and snapshots may run beside that and take the same
 * lock.
 */
public final class SlotStateMachine extends BaseStateMachine {
    private final SlotPolicy policy;
    private final LongSupplier leaderClock;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    /** Guarded by {@code this}. */
    private SlotLedger ledger;
    /** Guarded by {@code this}. */
    private final Map<String, Long> lastCollected = new TreeMap<>();
    /** Guarded by {@code this}. */
    private final Invitations invitations = new Invitations();

    /**
     * @param policy the ledger's policy; every replica must be given the same one (see {@link QuorumPolicy})
     */
    public SlotStateMachine(SlotPolicy policy) {
        this(policy, System::currentTimeMillis);
    }

    /**
     * @param policy      the ledger's policy, the same on every replica
     * @param leaderClock milliseconds, read only on the leader when it proposes an entry
     */
    SlotStateMachine(SlotPolicy policy, LongSupplier leaderClock) {
        this.policy = policy;
        this.leaderClock = leaderClock;
        this.ledger = new SlotLedger(policy);
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        reinitialize();
    }

    @Override
    public void reinitialize() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        if (snapshot == null) {
            return;
        }
        File file = snapshot.getFile().getPath().toFile();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(file, md5);
        }
        Map<String, Long> times = new TreeMap<>();
        LedgerState state;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file.toPath()))) {
            state = SlotCodec.snapshot(in, times);
        }
        synchronized (this) {
            ledger = SlotLedger.restore(policy, state);
            lastCollected.clear();
            lastCollected.putAll(times);
            updateLastAppliedTermIndex(snapshot.getTermIndex());
        }
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public long takeSnapshot() throws IOException {
        LedgerState state;
        Map<String, Long> times;
        TermIndex applied;
        synchronized (this) {
            state = ledger.state();
            times = new TreeMap<>(lastCollected);
            applied = getLastAppliedTermIndex();
        }
        if (applied == null) {
            return -1;
        }
        File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file.toPath()))) {
            SlotCodec.snapshot(state, times, out);
        }
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), applied));
        return applied.getIndex();
    }

    /** On the leader: checks the command and stamps it with the leader's clock. */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        byte[] command = request.getMessage().getContent().toByteArray();
        TransactionContext.Builder b = TransactionContext.newBuilder().setStateMachine(this).setClientRequest(request);
        SlotCommand c;
        try {
            c = SlotCodec.command(command);
        } catch (IllegalArgumentException e) {
            TransactionContext t = b.build();
            t.setException(e);
            return t;
        }
        if (c.op() == SlotCommand.Op.VIEW) {
            TransactionContext t = b.build();
            t.setException(new IllegalArgumentException("VIEW is a read: send it as a read-only request"));
            return t;
        }
        return b.setLogData(ByteString.copyFrom(SlotCodec.entry(leaderClock.getAsLong(), command))).build();
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        byte[] data = entry.getStateMachineLogEntry().getLogData().toByteArray();
        long now = SlotCodec.entryTime(data);
        SlotCommand c = SlotCodec.entryCommand(data);
        Outcome o;
        synchronized (this) {
            o = apply(c, now);
            for (SlotEvent e : o.events()) {
                if (e.type() == SlotEvent.Type.RELEASED) {
                    lastCollected.put(e.node(), e.at());
                }
                invitations.event(e);
            }
            if (c instanceof SlotCommand.Heartbeat h) {
                o = noted(h, o, now);
            }
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        }
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(SlotCodec.outcome(o))));
    }

    private Outcome apply(SlotCommand c, long now) {
        if (c instanceof SlotCommand.Join) {
            return ledger.join(c.node(), now);
        } else if (c instanceof SlotCommand.Heartbeat h) {
            return ledger.heartbeat(h.node(), h.dueInMillis(), h.fullDueInMillis(), now);
        } else if (c instanceof SlotCommand.Leave) {
            return ledger.leave(c.node(), now);
        } else if (c instanceof SlotCommand.Acquire a) {
            invitations.fullAsked(a.node(), a.ask().full() ? a.ask().holdMillis() : a.ask().fullOfferMillis());
            return ledger.acquire(a.node(), a.ask(), now);
        } else if (c instanceof SlotCommand.Release r) {
            return ledger.release(r.node(), r.epoch(), r.pauseMillis(), now);
        } else if (c instanceof SlotCommand.Renew r) {
            return ledger.renew(r.node(), r.epoch(), now);
        } else if (c instanceof SlotCommand.Cancel x) {
            return ledger.cancel(x.node(), x.gcId(), now);
        } else if (c instanceof SlotCommand.Tick) {
            return new Outcome(Status.OK, null, -1, "", ledger.tick(now));
        }
        throw new IllegalStateException("a VIEW in the log"); // refused in startTransaction
    }

    /**
     * Notes a member's heartbeat in {@link #invitations}, as the coordinator does: also a queued or collecting
     * member's (its coming collection is what invites the others).
     *
     * @return {@code o}, inviting the member to collect now when it neither waits nor collects and its next collection
     *     would meet another's that is near ({@link Invitations#invitedBy})
     */
    private Outcome noted(SlotCommand.Heartbeat h, Outcome o, long now) {
        if (o.status() == Status.UNKNOWN_NODE) {
            return o;
        }
        invitations.heartbeat(h.node(), h.dueInMillis(), h.fullDueInMillis(), now);
        String by = o.status() == Status.OK ? invitations.invitedBy(h.node(), now) : null;
        return by == null ? o : o.invitedBy(by);
    }

    /** Answers {@link SlotCommand.View}; a linearizable read when the client asks for one. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        SlotCommand c;
        try {
            c = SlotCodec.command(request.getContent().toByteArray());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (c.op() != SlotCommand.Op.VIEW) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(c.op() + " changes the ledger: send it "
                + "as a write"));
        }
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(SlotCodec.view(view()))));
    }

    /** @return this replica's ledger as applied so far, with this replica's clock (the leader clock when it leads) */
    public synchronized SlotGroupView view() {
        TermIndex applied = getLastAppliedTermIndex();
        Map<String, Long> dueAt = new HashMap<>();
        for (LedgerState.Member m : ledger.state().members()) {
            if (m.dueAt() != Long.MAX_VALUE) {
                dueAt.put(m.node(), m.dueAt());
            }
        }
        return new SlotGroupView(ledger.view(), lastCollected, applied == null ? -1 : applied.getIndex(),
            leaderClock.getAsLong(), dueAt);
    }

    /** @return this replica's whole ledger as applied so far, for comparing replicas */
    public synchronized LedgerState state() {
        return ledger.state();
    }
}
