package io.bladegc.benchmarks.raftkv;

import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/**
 * A replicated counter, written as any Ratis user would write one: it knows nothing of Blade (no Blade import, no
 * hook, no idea that leadership moves on purpose).
 *
 * <p>Commands, as UTF-8 text:
 * <ul>
 *   <li>write {@code INCREMENT <clientId> <seq> [padding]}: adds one to the total and records that {@code seq} of
 *       {@code clientId} was applied (once more). The padding, if any, is ignored (the caller uses it to make the
 *       peers allocate). Replies with the new total.</li>
 *   <li>read {@code GET}: the total.</li>
 *   <li>read {@code SEQS <clientId>}: what was applied for that client, one line
 *       {@code <applications> <distinct> <ranges> <duplicates>}: how many INCREMENTs of that client were applied,
 *       how many distinct sequence numbers they carried, those numbers as ranges ({@code 1-540,542-900}, {@code -}
 *       when none) and every number applied more than once with its count ({@code 541x2}, {@code -} when none).</li>
 * </ul>
 * The state machine does not deduplicate: it applies whatever the log holds, so a write that reaches the log twice is
 * counted twice, and the {@code SEQS} read shows it. No snapshots (a test's log stays small).
 *
 * <p>Thread safety: Ratis applies transactions one at a time; applying and the reads hold this object's monitor.
 */
public final class CounterStateMachine extends BaseStateMachine {
    /** What one client's INCREMENTs did to the state. */
    private static final class Applied {
        long applications;
        final BitSet seqs = new BitSet();
        final Map<Integer, Integer> duplicates = new HashMap<>();
    }

    private final Map<String, Applied> clients = new HashMap<>();
    private long total;

    /** Rejects, before it reaches the log, a request that is not a well-formed INCREMENT. */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        TransactionContext transaction = super.startTransaction(request);
        try {
            increment(request.getMessage().getContent().toStringUtf8());
        } catch (IllegalArgumentException e) {
            transaction.setException(e);
        }
        return transaction;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        String text = entry.getStateMachineLogEntry().getLogData().toStringUtf8();
        synchronized (this) {
            try {
                Increment inc = increment(text);
                total++;
                Applied a = clients.computeIfAbsent(inc.clientId(), c -> new Applied());
                a.applications++;
                if (a.seqs.get(inc.seq())) {
                    a.duplicates.merge(inc.seq(), 2, (old, two) -> old + 1);
                } else {
                    a.seqs.set(inc.seq());
                }
                return CompletableFuture.completedFuture(Message.valueOf(Long.toString(total)));
            } catch (IllegalArgumentException e) {
                return CompletableFuture.failedFuture(e);
            } finally {
                updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            }
        }
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        String text = request.getContent().toStringUtf8().trim();
        synchronized (this) {
            if (text.equals("GET")) {
                return CompletableFuture.completedFuture(Message.valueOf(Long.toString(total)));
            }
            if (text.startsWith("SEQS ")) {
                Applied a = clients.get(text.substring(5).trim());
                if (a == null) {
                    return CompletableFuture.completedFuture(Message.valueOf("0 0 - -"));
                }
                return CompletableFuture.completedFuture(Message.valueOf(a.applications + " " + a.seqs.cardinality()
                    + " " + ranges(a.seqs) + " " + duplicates(a.duplicates)));
            }
        }
        return CompletableFuture.failedFuture(new IllegalArgumentException("unknown read: " + text));
    }

    /** One parsed INCREMENT. */
    private record Increment(String clientId, int seq) {
    }

    private static Increment increment(String text) {
        String[] parts = text.split(" ", 4);
        if (parts.length < 3 || !parts[0].equals("INCREMENT")) {
            throw new IllegalArgumentException("not INCREMENT <clientId> <seq> [padding]: "
                + text.substring(0, Math.min(text.length(), 60)));
        }
        try {
            int seq = Integer.parseInt(parts[2]);
            if (seq < 0) {
                throw new NumberFormatException();
            }
            return new Increment(parts[1], seq);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad sequence number: " + parts[2]);
        }
    }

    private static String ranges(BitSet seqs) {
        List<String> out = new ArrayList<>();
        for (int from = seqs.nextSetBit(0); from >= 0; ) {
            int to = seqs.nextClearBit(from) - 1;
            out.add(from == to ? Integer.toString(from) : from + "-" + to);
            from = seqs.nextSetBit(to + 1);
        }
        return out.isEmpty() ? "-" : String.join(",", out);
    }

    private static String duplicates(Map<Integer, Integer> duplicates) {
        if (duplicates.isEmpty()) {
            return "-";
        }
        List<String> out = new ArrayList<>();
        duplicates.entrySet().stream().sorted(Map.Entry.comparingByKey())
            .forEach(e -> out.add(e.getKey() + "x" + e.getValue()));
        return String.join(",", out);
    }
}
