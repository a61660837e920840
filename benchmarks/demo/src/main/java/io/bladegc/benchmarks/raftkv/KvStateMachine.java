package io.bladegc.benchmarks.raftkv;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
import org.apache.ratis.util.MD5FileUtil;

/**
 * The replicated key-value store's state machine: a map from string keys to string values. {@link KvCommand.Put},
 * {@link KvCommand.Delete} and {@link KvCommand.Preload} are applied from the Raft log; {@link KvCommand.Get} and
 * {@link KvCommand.Size} are answered by {@link #query} (linearizable when the server's read option is
 * {@code LINEARIZABLE}, since Ratis then runs the query only once this peer has applied the leader's read index).
 *
 * <p>Snapshots ({@link #takeSnapshot()}) are single files in {@link SimpleStateMachineStorage} holding every entry;
 * the latest is loaded on start and after a snapshot is installed from the leader.
 *
 * <p>Thread safety: Ratis applies transactions one at a time; applying, taking a snapshot and loading one also hold
 * this object's monitor, so a snapshot is a consistent cut at its index. Queries run concurrently on the
 * {@link ConcurrentHashMap} without that monitor: each sees every single-key change atomically, but a
 * {@link KvCommand.Preload} being applied may be seen half done by a concurrent {@link KvCommand.Size}.
 */
public final class KvStateMachine extends BaseStateMachine {
    private static final int SNAPSHOT_MAGIC = 0x4b565331; // "KVS1"

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final Map<String, String> map = new ConcurrentHashMap<>();

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        reinitialize();
    }

    /** Replaces the map with the latest snapshot's content (empty if there is none). */
    @Override
    public synchronized void reinitialize() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        map.clear();
        if (snapshot != null) {
            load(snapshot);
        }
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /** Rejects, before it reaches the log, a request that is not a well-formed write. */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        TransactionContext transaction = super.startTransaction(request);
        try {
            if (!KvCommand.decode(request.getMessage().getContent().asReadOnlyByteBuffer()).isWrite()) {
                transaction.setException(new IllegalArgumentException("not a write; send it as a read-only query"));
            }
        } catch (IllegalArgumentException e) {
            transaction.setException(e);
        }
        return transaction;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        try {
            KvCommand command = KvCommand.decode(entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
            synchronized (this) {
                Message reply = apply(command);
                updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
                return CompletableFuture.completedFuture(reply);
            }
        } catch (IllegalArgumentException e) {
            synchronized (this) {
                updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            }
            return CompletableFuture.failedFuture(e);
        }
    }

    private Message apply(KvCommand command) {
        if (command instanceof KvCommand.Put put) {
            return KvReply.ofValue(map.put(put.key(), put.value()));
        } else if (command instanceof KvCommand.Delete delete) {
            return KvReply.ofValue(map.remove(delete.key()));
        } else if (command instanceof KvCommand.Preload preload) {
            for (int i = preload.first(); i < preload.first() + preload.count(); i++) {
                map.put(KvCommand.Preload.keyOf(i), KvCommand.Preload.valueOf(i, preload.valueBytes()));
            }
            return KvReply.ofCount(map.size());
        }
        throw new IllegalArgumentException("not a write: " + command);
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        try {
            KvCommand command = KvCommand.decode(request.getContent().asReadOnlyByteBuffer());
            if (command instanceof KvCommand.Get get) {
                return CompletableFuture.completedFuture(KvReply.ofValue(map.get(get.key())));
            } else if (command instanceof KvCommand.Size) {
                return CompletableFuture.completedFuture(KvReply.ofCount(map.size()));
            }
            throw new IllegalArgumentException("not a query; send it as a write: " + command);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Writes every entry to {@code snapshot.<term>_<index>} (through a temporary file and a rename) with its MD5.
     *
     * @return the index of the last applied entry, which the snapshot covers
     */
    @Override
    public synchronized long takeSnapshot() throws IOException {
        TermIndex applied = getLastAppliedTermIndex();
        File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
        Path temporary = file.toPath().resolveSibling(file.getName() + ".tmp");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(temporary)))) {
            out.writeInt(SNAPSHOT_MAGIC);
            out.writeInt(map.size());
            for (Map.Entry<String, String> e : map.entrySet()) {
                writeString(out, e.getKey());
                writeString(out, e.getValue());
            }
        }
        Files.move(temporary, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), applied));
        return applied.getIndex();
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        Path path = snapshot.getFile().getPath();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(path.toFile(), md5);
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path)))) {
            if (in.readInt() != SNAPSHOT_MAGIC) {
                throw new IOException("not a key-value snapshot: " + path);
            }
            int entries = in.readInt();
            for (int i = 0; i < entries; i++) {
                map.put(readString(in), readString(in));
            }
        }
        updateLastAppliedTermIndex(SimpleStateMachineStorage.getTermIndexFromSnapshotFile(path.toFile()));
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(utf8.length);
        out.write(utf8);
    }

    private static String readString(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > KvCommand.MAX_STRING_BYTES) {
            throw new IOException("corrupt snapshot: string length " + length);
        }
        byte[] utf8 = in.readNBytes(length);
        if (utf8.length != length) {
            throw new IOException("corrupt snapshot: truncated string");
        }
        return new String(utf8, StandardCharsets.UTF_8);
    }
}
