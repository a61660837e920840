package io.bladegc.ratis;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.LedgerState;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.QueueEntry;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.SlotView;
import io.bladegc.api.slot.Status;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The bytes of the replicated ledger: commands (client to log), log entries (a command stamped with the leader's
 * clock), outcomes and views (state machine to client), and snapshots. A version byte leads every message, so a
 * replica meeting a format it does not know says so instead of misreading it.
 *
 * <p>Stateless and thread-safe.
 */
final class SlotCodec {
    /**
     * 7: each command carries the fields of its call only (6: acquires and queue entries say whether the collection
     * is a full one and how long it is expected to hold; 5: snapshots carry each member's newest ended GC request,
     * views when members are due; 4: grants say whether they are full, queue entries carry the full pause offered,
     * members when they are due).
     */
    private static final byte VERSION = 7;

    private SlotCodec() {
    }

    static byte[] command(SlotCommand c) {
        Objects.requireNonNull(c.node(), "node");
        return write(out -> {
            out.writeByte(c.op().ordinal());
            out.writeUTF(c.node());
            if (c instanceof SlotCommand.Heartbeat h) {
                out.writeLong(h.dueInMillis());
                out.writeLong(h.fullDueInMillis());
            } else if (c instanceof SlotCommand.Acquire a) {
                Ask ask = Objects.requireNonNull(a.ask(), "ask");
                out.writeLong(ask.gcId());
                out.writeLong(ask.leadMillis());
                out.writeBoolean(ask.full());
                out.writeLong(ask.holdMillis());
                out.writeLong(ask.fullOfferMillis());
            } else if (c instanceof SlotCommand.Release r) {
                out.writeLong(r.epoch());
                out.writeLong(r.pauseMillis());
            } else if (c instanceof SlotCommand.Renew r) {
                out.writeLong(r.epoch());
            } else if (c instanceof SlotCommand.Cancel x) {
                out.writeLong(x.gcId());
            }
        });
    }

    /** @throws IllegalArgumentException when the bytes are not a command of this version */
    static SlotCommand command(byte[] bytes) {
        return read(bytes, in -> {
            int op = in.readUnsignedByte();
            if (op >= SlotCommand.Op.values().length) {
                throw new IllegalArgumentException("unknown slot command " + op);
            }
            String node = in.readUTF();
            return switch (SlotCommand.Op.values()[op]) {
                case JOIN -> new SlotCommand.Join(node);
                case HEARTBEAT -> new SlotCommand.Heartbeat(node, in.readLong(), in.readLong());
                case LEAVE -> new SlotCommand.Leave(node);
                case ACQUIRE -> new SlotCommand.Acquire(node, new Ask(in.readLong(), in.readLong(), in.readBoolean(),
                    in.readLong(), in.readLong()));
                case RELEASE -> new SlotCommand.Release(node, in.readLong(), in.readLong());
                case RENEW -> new SlotCommand.Renew(node, in.readLong());
                case CANCEL -> new SlotCommand.Cancel(node, in.readLong());
                case TICK -> new SlotCommand.Tick();
                case VIEW -> new SlotCommand.View();
            };
        });
    }

    /** A log entry: the command and the leader's clock when it was proposed, the only "now" apply may use. */
    static byte[] entry(long leaderMillis, byte[] command) {
        return write(out -> {
            out.writeLong(leaderMillis);
            out.write(command);
        });
    }

    static long entryTime(byte[] entry) {
        return read(entry, DataInputStream::readLong);
    }

    static SlotCommand entryCommand(byte[] entry) {
        byte[] command = new byte[entry.length - 1 - Long.BYTES];
        System.arraycopy(entry, 1 + Long.BYTES, command, 0, command.length);
        return command(command);
    }

    static byte[] outcome(Outcome o) {
        return write(out -> {
            out.writeByte(o.status().ordinal());
            writeNullableGrant(out, o.grant());
            out.writeInt(o.queuePosition());
            out.writeUTF(o.message());
            out.writeInt(o.events().size());
            for (SlotEvent e : o.events()) {
                out.writeByte(e.type().ordinal());
                out.writeUTF(e.node());
                out.writeLong(e.gcId());
                out.writeLong(e.epoch());
                out.writeLong(e.at());
                out.writeUTF(e.detail());
            }
            out.writeUTF(o.invitedBy() == null ? "" : o.invitedBy());
        });
    }

    static Outcome outcome(byte[] bytes) {
        return read(bytes, in -> {
            Status status = Status.values()[in.readUnsignedByte()];
            Grant grant = readNullableGrant(in);
            int position = in.readInt();
            String message = in.readUTF();
            int n = in.readInt();
            List<SlotEvent> events = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                events.add(new SlotEvent(SlotEvent.Type.values()[in.readUnsignedByte()], in.readUTF(), in.readLong(),
                    in.readLong(), in.readLong(), in.readUTF()));
            }
            String invitedBy = in.readUTF();
            return new Outcome(status, grant, position, message, events, invitedBy.isEmpty() ? null : invitedBy);
        });
    }

    static byte[] view(SlotGroupView v) {
        return write(out -> {
            SlotView s = v.slots();
            out.writeInt(s.members().size());
            for (String m : s.members()) {
                out.writeUTF(m);
            }
            writeGrants(out, s.collecting());
            writeQueue(out, s.queue());
            out.writeLong(s.epoch());
            out.writeLong(s.grantsFrom());
            writePolicy(out, s.policy());
            writeTimes(out, v.lastCollected());
            out.writeLong(v.appliedIndex());
            out.writeLong(v.clock());
            writeTimes(out, v.dueAt());
        });
    }

    static SlotGroupView view(byte[] bytes) {
        return read(bytes, in -> {
            int n = in.readInt();
            List<String> members = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                members.add(in.readUTF());
            }
            SlotView s = new SlotView(members, readGrants(in), readQueue(in), in.readLong(), in.readLong(),
                readPolicy(in));
            Map<String, Long> lastCollected = readTimes(in);
            long appliedIndex = in.readLong();
            long clock = in.readLong();
            return new SlotGroupView(s, lastCollected, appliedIndex, clock, readTimes(in));
        });
    }

    /** A snapshot: the whole ledger and when each peer last collected. */
    static void snapshot(LedgerState state, Map<String, Long> lastCollected, OutputStream to) throws IOException {
        DataOutputStream out = new DataOutputStream(to);
        out.writeByte(VERSION);
        out.writeInt(state.members().size());
        for (LedgerState.Member m : state.members()) {
            out.writeUTF(m.node());
            out.writeLong(m.lastSeen());
            out.writeLong(m.dueAt());
            out.writeLong(m.fullDueAt());
            out.writeLong(m.endedGcId());
        }
        writeGrants(out, state.grants());
        writeQueue(out, state.queue());
        out.writeLong(state.epoch());
        out.writeLong(state.clock());
        out.writeLong(state.grantsFrom());
        writeTimes(out, lastCollected);
        out.flush();
    }

    /** Reads what {@link #snapshot(LedgerState, Map, OutputStream)} wrote, putting the times into {@code lastCollected}. */
    static LedgerState snapshot(InputStream from, Map<String, Long> lastCollected) throws IOException {
        DataInputStream in = new DataInputStream(from);
        checkVersion(in.readUnsignedByte());
        int n = in.readInt();
        List<LedgerState.Member> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            members.add(new LedgerState.Member(in.readUTF(), in.readLong(), in.readLong(), in.readLong(),
                in.readLong()));
        }
        LedgerState state = new LedgerState(members, readGrants(in), readQueue(in), in.readLong(), in.readLong(),
            in.readLong());
        lastCollected.putAll(readTimes(in));
        return state;
    }

    private static void writeNullableGrant(DataOutputStream out, Grant g) throws IOException {
        out.writeBoolean(g != null);
        if (g != null) {
            writeGrant(out, g);
        }
    }

    private static Grant readNullableGrant(DataInputStream in) throws IOException {
        return in.readBoolean() ? readGrant(in) : null;
    }

    private static void writeGrant(DataOutputStream out, Grant g) throws IOException {
        out.writeUTF(g.node());
        out.writeLong(g.gcId());
        out.writeLong(g.epoch());
        out.writeLong(g.grantedAt());
        out.writeLong(g.deadline());
        out.writeBoolean(g.full());
    }

    private static Grant readGrant(DataInputStream in) throws IOException {
        return new Grant(in.readUTF(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readBoolean());
    }

    private static void writeGrants(DataOutputStream out, List<Grant> grants) throws IOException {
        out.writeInt(grants.size());
        for (Grant g : grants) {
            writeGrant(out, g);
        }
    }

    private static List<Grant> readGrants(DataInputStream in) throws IOException {
        int n = in.readInt();
        List<Grant> grants = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            grants.add(readGrant(in));
        }
        return grants;
    }

    private static void writeQueue(DataOutputStream out, List<QueueEntry> queue) throws IOException {
        out.writeInt(queue.size());
        for (QueueEntry q : queue) {
            out.writeUTF(q.node());
            out.writeLong(q.gcId());
            out.writeLong(q.ask().leadMillis());
            out.writeBoolean(q.ask().full());
            out.writeLong(q.ask().holdMillis());
            out.writeLong(q.ask().fullOfferMillis());
            out.writeLong(q.urgentAt());
        }
    }

    private static List<QueueEntry> readQueue(DataInputStream in) throws IOException {
        int n = in.readInt();
        List<QueueEntry> queue = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String node = in.readUTF();
            queue.add(new QueueEntry(node, new Ask(in.readLong(), in.readLong(), in.readBoolean(), in.readLong(),
                in.readLong()), in.readLong()));
        }
        return queue;
    }

    private static void writePolicy(DataOutputStream out, SlotPolicy p) throws IOException {
        out.writeInt(p.maxCollecting());
        out.writeDouble(p.maxCollectingFraction());
        out.writeInt(p.minHealthy());
        out.writeLong(p.leaseMillis());
        out.writeLong(p.memberTimeoutMillis());
        out.writeInt(p.maxCollectingWhenDue());
    }

    private static SlotPolicy readPolicy(DataInputStream in) throws IOException {
        return new SlotPolicy(in.readInt(), in.readDouble(), in.readInt(), in.readLong(), in.readLong(), in.readInt());
    }

    private static void writeTimes(DataOutputStream out, Map<String, Long> times) throws IOException {
        out.writeInt(times.size());
        for (Map.Entry<String, Long> e : times.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeLong(e.getValue());
        }
    }

    private static Map<String, Long> readTimes(DataInputStream in) throws IOException {
        int n = in.readInt();
        Map<String, Long> times = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            times.put(in.readUTF(), in.readLong());
        }
        return times;
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return bytes.toByteArray();
    }

    private static <T> T read(byte[] bytes, Reader<T> r) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            checkVersion(in.readUnsignedByte());
            return r.read(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated or malformed slot message (" + bytes.length + " bytes)", e);
        }
    }

    private static void checkVersion(int version) {
        if (version != VERSION) {
            throw new IllegalArgumentException("slot message of format version " + version + "; this Blade reads "
                + VERSION);
        }
    }
}
