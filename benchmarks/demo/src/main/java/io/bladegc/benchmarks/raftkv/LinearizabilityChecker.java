package io.bladegc.benchmarks.raftkv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Decides whether a history of {@link KvOperation}s on a key-value store is linearizable.
 *
 * <p>A map is linearizable iff each key's sub-history is linearizable as a single register that starts absent,
 * so the history is split by key and every key is checked on its own, in key order, stopping at the first
 * violating key. Each key is checked with the search of Wing &amp; Gong as improved by Lowe ("Testing for
 * linearizability", 2017): events are walked in time order, the next operation is tentatively linearized when
 * its invocation is reached and the register accepts it, the search backtracks when it reaches the return of an
 * operation that is not yet linearized, and (set of linearized operations, register value) configurations
 * already explored are remembered so that none is explored twice. The search keeps its own stack, so a key with
 * tens of thousands of operations does not overflow the thread stack.
 *
 * <p>Input handling: operations known to have failed are dropped (they did not take effect); GETs that never
 * returned are dropped (they observed nothing anyone saw); PUTs and DELETEs that never returned may be
 * linearized at any instant after their invocation or left out.
 *
 * <p>Complexity: the problem is NP-complete in general. With few concurrent operations per instant, as in
 * histories recorded from a handful of clients, the search is close to linear; with many overlapping writes
 * (or many never-returned writes) on one key it can become exponential. The number of explored configurations
 * per key is therefore bounded ({@link #DEFAULT_MAX_STATES_PER_KEY} unless given), and a key whose bound is hit
 * yields {@link Verdict#UNDECIDED} rather than a guess. Memory grows with the explored configurations; each is
 * stored compactly (how many operations, in invocation order, are linearized without a gap, plus bit sets of
 * those linearized beyond that prefix and of the never-returned ones linearized), roughly 150 bytes with
 * moderate concurrency, so reaching the default bound takes on the order of 1 GB of heap.
 *
 * <p>Thread safety: the class is stateless; {@link #check} may be called from any number of threads at once.
 */
public final class LinearizabilityChecker {

    /** Default bound on the configurations explored for one key before giving up with {@link Verdict#UNDECIDED}. */
    public static final long DEFAULT_MAX_STATES_PER_KEY = 5_000_000L;

    /** How many operations of the longest linearizable prefix an explanation quotes. */
    private static final int QUOTED_OPERATIONS = 3;

    /** The three possible answers. */
    public enum Verdict {
        /** Every key's sub-history has a linearization. */
        LINEARIZABLE,
        /** Some key's sub-history has none; {@link Result#key()} names the first such key. */
        NOT_LINEARIZABLE,
        /** No violation was found, but the search of at least one key hit its bound before deciding. */
        UNDECIDED
    }

    /**
     * Outcome of {@link #check}.
     *
     * @param verdict           linearizable, not, or undecided
     * @param key               for {@link Verdict#NOT_LINEARIZABLE} the violating key, for
     *                          {@link Verdict#UNDECIDED} the first undecided key, otherwise null
     * @param explanation       human-readable reason for a verdict other than {@link Verdict#LINEARIZABLE}
     *                          (empty for that one)
     * @param operationsChecked operations that took part in the search, over all keys examined (failed
     *                          operations, never-returned GETs and keys after a violating one are not counted)
     * @param statesExplored    configurations explored over all keys examined
     */
    public record Result(
            Verdict verdict, String key, String explanation, int operationsChecked, long statesExplored) {

        /** Whether the verdict is {@link Verdict#LINEARIZABLE} (false for both other verdicts). */
        public boolean linearizable() {
            return verdict == Verdict.LINEARIZABLE;
        }
    }

    private LinearizabilityChecker() {
    }

    /** {@link #check(List, long)} with {@link #DEFAULT_MAX_STATES_PER_KEY}. */
    public static Result check(List<KvOperation> history) {
        return check(history, DEFAULT_MAX_STATES_PER_KEY);
    }

    /**
     * Checks a history, in any order, of operations on any number of keys.
     *
     * @param history         the operations; not modified
     * @param maxStatesPerKey how many configurations the search of one key may explore before that key is
     *                        declared undecided; must be positive
     * @return the verdict, with the violating or undecided key and an explanation when not linearizable
     */
    public static Result check(List<KvOperation> history, long maxStatesPerKey) {
        if (maxStatesPerKey <= 0) {
            throw new IllegalArgumentException("maxStatesPerKey must be positive: " + maxStatesPerKey);
        }
        Map<String, List<KvOperation>> byKey = new TreeMap<>();
        for (KvOperation op : history) {
            if (!op.failed() && !(op.kind() == KvOperation.Kind.GET && op.pending())) {
                byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            }
        }
        int checked = 0;
        long states = 0;
        String undecidedKey = null;
        String undecidedExplanation = null;
        int undecidedKeys = 0;
        for (Map.Entry<String, List<KvOperation>> entry : byKey.entrySet()) {
            RegisterSearch search = new RegisterSearch(entry.getKey(), entry.getValue(), maxStatesPerKey);
            Verdict verdict = search.run();
            checked += entry.getValue().size();
            states += search.statesExplored;
            if (verdict == Verdict.NOT_LINEARIZABLE) {
                return new Result(verdict, entry.getKey(), search.explanation, checked, states);
            }
            if (verdict == Verdict.UNDECIDED && undecidedKeys++ == 0) {
                undecidedKey = entry.getKey();
                undecidedExplanation = search.explanation;
            }
        }
        if (undecidedKeys > 0) {
            String others = undecidedKeys == 1 ? "" : " (" + (undecidedKeys - 1) + " more key(s) also undecided)";
            return new Result(Verdict.UNDECIDED, undecidedKey, undecidedExplanation + others, checked, states);
        }
        return new Result(Verdict.LINEARIZABLE, null, "", checked, states);
    }

    /**
     * A configuration of the search: which operations are linearized, and the register value they leave. The
     * set is split into the returned operations {@code 0 .. prefix-1} (all linearized), those linearized beyond
     * the prefix (bit {@code i} is operation {@code prefix + i}) and the linearized never-returned operations
     * (bit {@code i} is the {@code i}-th of them). Operations linearized beyond the prefix were all invoked
     * before operation {@code prefix} returned, so that set stays as small as the history's concurrency.
     */
    private record Configuration(int prefix, BitSet beyondPrefix, BitSet pending, String value) {
    }

    /**
     * The Wing-Gong-Lowe search over one key's operations, treated as a register that starts absent.
     *
     * <p>Events (invocations and returns) live in a doubly linked list over arrays, in time order with
     * invocations before returns at equal times. Linearizing an operation unlinks its events; backtracking links
     * them back in reverse order.
     */
    private static final class RegisterSearch {
        private static final int NONE = -1;

        private final String key;
        /** The returned operations in invocation order, then the never-returned ones. */
        private final List<KvOperation> ops;
        private final int returnedCount;
        private final long maxStates;

        /** Per event: its operation, and whether it is the invocation (else the return). */
        private final int[] eventOp;
        private final boolean[] isCall;
        /** Links; the sentinel head is event {@code head}. */
        private final int[] next;
        private final int[] prev;
        private final int head;
        /** Per operation: its invocation and return events ({@link #NONE} if it never returned). */
        private final int[] callEvent;
        private final int[] returnEvent;

        long statesExplored;
        String explanation = "";

        /** Longest linearizable prefix met before a backtrack, for the explanation. */
        private int[] bestPrefix = new int[0];
        private String bestValue;
        private int bestBlocked = NONE;
        private List<Integer> bestCandidates = List.of();

        RegisterSearch(String key, List<KvOperation> operations, long maxStates) {
            this.key = key;
            this.ops = new ArrayList<>(operations);
            this.ops.sort(Comparator.comparing(KvOperation::pending).thenComparingLong(KvOperation::invokedNanos)
                    .thenComparingLong(KvOperation::returnedNanos));
            this.returnedCount = (int) operations.stream().filter(op -> !op.pending()).count();
            this.maxStates = maxStates;
            int n = operations.size();
            callEvent = new int[n];
            returnEvent = new int[n];
            Arrays.fill(returnEvent, NONE);
            List<long[]> events = new ArrayList<>(2 * n); // {time, 0 = call | 1 = return, op}
            for (int i = 0; i < n; i++) {
                KvOperation op = ops.get(i);
                events.add(new long[] {op.invokedNanos(), 0, i});
                if (!op.pending()) {
                    events.add(new long[] {op.returnedNanos(), 1, i});
                }
            }
            events.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1])
                    .thenComparingLong(e -> e[2]));
            int count = events.size();
            eventOp = new int[count];
            isCall = new boolean[count];
            next = new int[count + 1];
            prev = new int[count + 1];
            head = count;
            for (int e = 0; e < count; e++) {
                long[] event = events.get(e);
                int op = (int) event[2];
                eventOp[e] = op;
                isCall[e] = event[1] == 0;
                if (isCall[e]) {
                    callEvent[op] = e;
                } else {
                    returnEvent[op] = e;
                }
                next[e] = e + 1 < count ? e + 1 : NONE;
                prev[e] = e == 0 ? head : e - 1;
            }
            next[head] = count == 0 ? NONE : 0;
            prev[head] = NONE;
        }

        /** Runs the search, leaving {@link #statesExplored} and, unless linearizable, {@link #explanation}. */
        Verdict run() {
            int n = ops.size();
            int unlinearizedReturned = returnedCount;
            BitSet linearized = new BitSet(n);
            Set<Configuration> explored = new HashSet<>();
            int[] stackOp = new int[n];
            String[] stackValue = new String[n];
            int depth = 0;
            String value = null;
            int event = next[head];
            // While a returned operation is unlinearized its return event is still linked, so event != NONE.
            while (unlinearizedReturned > 0) {
                int op = eventOp[event];
                if (isCall[event]) {
                    KvOperation operation = ops.get(op);
                    String after = switch (operation.kind()) {
                        case PUT -> operation.value();
                        case DELETE -> null;
                        case GET -> value;
                    };
                    boolean accepted = operation.kind() != KvOperation.Kind.GET
                            || Objects.equals(value, operation.value());
                    if (accepted) {
                        linearized.set(op);
                        if (explored.add(configuration(linearized, after))) {
                            if (++statesExplored > maxStates) {
                                explanation = "key \"" + key + "\": search of its " + n + " operations stopped after "
                                        + maxStates + " configurations without a verdict; raise maxStatesPerKey";
                                return Verdict.UNDECIDED;
                            }
                            stackOp[depth] = op;
                            stackValue[depth] = value;
                            depth++;
                            value = after;
                            unlink(op);
                            unlinearizedReturned -= operation.pending() ? 0 : 1;
                            event = next[head];
                            continue;
                        }
                        linearized.clear(op);
                    }
                    event = next[event];
                } else {
                    // op must take effect before it returns, and nothing pending can be placed next: backtrack.
                    if (depth > bestPrefix.length || bestBlocked == NONE) {
                        rememberBest(stackOp, depth, value, event);
                    }
                    if (depth == 0) {
                        explanation = explain(n);
                        return Verdict.NOT_LINEARIZABLE;
                    }
                    depth--;
                    int last = stackOp[depth];
                    value = stackValue[depth];
                    linearized.clear(last);
                    relink(last);
                    unlinearizedReturned += ops.get(last).pending() ? 0 : 1;
                    event = next[callEvent[last]];
                }
            }
            return Verdict.LINEARIZABLE;
        }

        private Configuration configuration(BitSet linearized, String value) {
            int prefix = Math.min(linearized.nextClearBit(0), returnedCount);
            return new Configuration(prefix, compact(linearized.get(prefix, returnedCount)),
                    compact(linearized.get(returnedCount, ops.size())), value);
        }

        /** The same bits, without the trailing zero words that {@link BitSet#get(int, int)} allocates. */
        private static BitSet compact(BitSet bits) {
            return BitSet.valueOf(bits.toLongArray());
        }

        private void unlink(int op) {
            unlinkEvent(callEvent[op]);
            if (returnEvent[op] != NONE) {
                unlinkEvent(returnEvent[op]);
            }
        }

        private void relink(int op) {
            if (returnEvent[op] != NONE) {
                relinkEvent(returnEvent[op]);
            }
            relinkEvent(callEvent[op]);
        }

        private void unlinkEvent(int e) {
            next[prev[e]] = next[e];
            if (next[e] != NONE) {
                prev[next[e]] = prev[e];
            }
        }

        private void relinkEvent(int e) {
            next[prev[e]] = e;
            if (next[e] != NONE) {
                prev[next[e]] = e;
            }
        }

        /** Records the prefix, the operation whose return blocked it and the invoked operations that were tried. */
        private void rememberBest(int[] stackOp, int depth, String value, int blockingReturn) {
            bestPrefix = Arrays.copyOf(stackOp, depth);
            bestValue = value;
            bestBlocked = eventOp[blockingReturn];
            List<Integer> candidates = new ArrayList<>();
            for (int e = next[head]; e != blockingReturn; e = next[e]) {
                if (isCall[e]) {
                    candidates.add(eventOp[e]);
                }
            }
            bestCandidates = candidates;
        }

        private String explain(int n) {
            StringBuilder text = new StringBuilder()
                    .append("key \"").append(key).append("\": no linearization of its ").append(n)
                    .append(" operations. Longest linearizable prefix: ").append(bestPrefix.length)
                    .append(" operation(s)");
            if (bestPrefix.length > 0) {
                int from = Math.max(0, bestPrefix.length - QUOTED_OPERATIONS);
                text.append(from > 0 ? ", ending ..., " : ": ")
                        .append(IntStream.range(from, bestPrefix.length)
                                .mapToObj(i -> ops.get(bestPrefix[i]).toString())
                                .collect(Collectors.joining(", ")));
            }
            text.append("; it leaves the register ").append(bestValue == null ? "absent" : "\"" + bestValue + "\"")
                    .append(". Then ").append(ops.get(bestBlocked))
                    .append(" cannot be placed before its return: none of the ").append(bestCandidates.size())
                    .append(" operation(s) invoked by then and not yet placed can come next");
            int quoted = Math.min(bestCandidates.size(), QUOTED_OPERATIONS);
            if (quoted > 0) {
                text.append(" (").append(bestCandidates.subList(0, quoted).stream()
                        .map(op -> ops.get(op).toString()).collect(Collectors.joining(", ")))
                        .append(quoted < bestCandidates.size() ? ", ..." : "").append(')');
            }
            return text.append('.').toString();
        }
    }
}
