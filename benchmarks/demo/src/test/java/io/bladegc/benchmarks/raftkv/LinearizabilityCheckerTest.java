package io.bladegc.benchmarks.raftkv;

import static io.bladegc.benchmarks.raftkv.KvOperation.NEVER_RETURNED;
import static io.bladegc.benchmarks.raftkv.KvOperation.delete;
import static io.bladegc.benchmarks.raftkv.KvOperation.get;
import static io.bladegc.benchmarks.raftkv.KvOperation.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.benchmarks.raftkv.LinearizabilityChecker.Result;
import io.bladegc.benchmarks.raftkv.LinearizabilityChecker.Verdict;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LinearizabilityCheckerTest {

    private static Result check(KvOperation... history) {
        return LinearizabilityChecker.check(List.of(history));
    }

    private static void assertLinearizable(Result result) {
        assertThat(result.verdict()).as(result.explanation()).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.linearizable()).isTrue();
        assertThat(result.key()).isNull();
    }

    private static void assertViolation(Result result, String key) {
        assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
        assertThat(result.linearizable()).isFalse();
        assertThat(result.key()).isEqualTo(key);
        assertThat(result.explanation()).contains("key \"" + key + "\"").contains("cannot be placed");
    }

    @Test
    void emptyHistoryIsLinearizable() {
        Result result = check();
        assertLinearizable(result);
        assertThat(result.operationsChecked()).isZero();
    }

    @Test
    void sequentialHistoryIsLinearizable() {
        Result result = check(
                get(1, "k", null, 0, 10),
                put(1, "k", "a", 20, 30),
                get(2, "k", "a", 40, 50),
                put(2, "k", "b", 60, 70),
                get(1, "k", "b", 80, 90),
                delete(1, "k", 100, 110),
                get(2, "k", null, 120, 130));
        assertLinearizable(result);
        assertThat(result.operationsChecked()).isEqualTo(7);
    }

    @Test
    void historyInAnyListOrderGivesTheSameVerdict() {
        List<KvOperation> history = new ArrayList<>(List.of(
                put(1, "k", "a", 0, 10), get(2, "k", "a", 20, 30), put(1, "k", "b", 40, 50),
                get(2, "k", "b", 60, 70)));
        Collections.reverse(history);
        assertLinearizable(LinearizabilityChecker.check(history));
    }

    @Test
    void overlappingPutAndGetIsLinearizableWhicheverValueTheGetRead() {
        assertLinearizable(check(put(1, "k", "a", 0, 10), put(1, "k", "b", 20, 60), get(2, "k", "a", 30, 50)));
        assertLinearizable(check(put(1, "k", "a", 0, 10), put(1, "k", "b", 20, 60), get(2, "k", "b", 30, 50)));
        // Two concurrent writes, read afterwards by two readers who agree on either winner.
        assertLinearizable(check(put(1, "k", "a", 0, 50), put(2, "k", "b", 10, 40),
                get(3, "k", "a", 60, 70), get(4, "k", "a", 80, 90)));
        assertLinearizable(check(put(1, "k", "a", 0, 50), put(2, "k", "b", 10, 40),
                get(3, "k", "b", 60, 70), get(4, "k", "b", 80, 90)));
    }

    @Test
    void operationsTouchingAtOneInstantCountAsOverlapping() {
        assertLinearizable(check(put(1, "k", "a", 0, 10), get(2, "k", null, 10, 20)));
        assertViolation(check(put(1, "k", "a", 0, 10), get(2, "k", null, 11, 20)), "k");
    }

    @Test
    void staleReadAfterCompletedPutIsNotLinearizable() {
        Result result = check(
                put(1, "k", "a", 0, 10),
                put(1, "k", "b", 20, 30),
                get(2, "k", "a", 40, 50));
        assertViolation(result, "k");
        assertThat(result.explanation()).contains("GET(k) -> \"a\"");
    }

    @Test
    void readOfAValueNeverWrittenIsNotLinearizable() {
        assertViolation(check(put(1, "k", "a", 0, 10), get(2, "k", "z", 5, 50)), "k");
        assertViolation(check(get(2, "k", "z", 0, 10)), "k");
    }

    @Test
    void readsGoingBackInTimeAreNotLinearizable() {
        // The second put overlaps both reads, so each read alone is fine, but not "b" then "a".
        KvOperation first = put(1, "k", "a", 0, 10);
        KvOperation second = put(1, "k", "b", 20, 100);
        assertLinearizable(check(first, second, get(2, "k", "a", 30, 40), get(3, "k", "b", 50, 60)));
        assertViolation(check(first, second, get(2, "k", "b", 30, 40), get(3, "k", "a", 50, 60)), "k");
    }

    @Test
    void getAfterDeleteReturningTheOldValueIsNotLinearizable() {
        assertViolation(check(put(1, "k", "a", 0, 10), delete(1, "k", 20, 30), get(2, "k", "a", 40, 50)), "k");
        assertLinearizable(check(put(1, "k", "a", 0, 10), delete(1, "k", 20, 30), get(2, "k", null, 40, 50)));
        assertLinearizable(check(put(1, "k", "a", 0, 10), delete(1, "k", 20, 60), get(2, "k", "a", 40, 50)));
    }

    @Test
    void pendingPutWhoseValueIsLaterReadIsLinearizable() {
        assertLinearizable(check(
                put(1, "k", "a", 0, 10),
                put(2, "k", "b", 20, NEVER_RETURNED),
                get(3, "k", "a", 30, 40),
                get(3, "k", "b", 1_000, 1_010),
                get(4, "k", "b", 2_000, 2_010)));
    }

    @Test
    void pendingPutCannotExplainAReadThatFinishedBeforeItsInvocation() {
        assertViolation(check(get(3, "k", "b", 0, 10), put(2, "k", "b", 20, NEVER_RETURNED)), "k");
    }

    @Test
    void pendingPutTakesEffectAtMostOnce() {
        assertViolation(check(
                put(2, "k", "b", 0, NEVER_RETURNED),
                get(3, "k", "b", 10, 20),
                put(1, "k", "a", 30, 40),
                get(3, "k", "b", 50, 60)), "k");
    }

    @Test
    void pendingPutWhoseValueIsNeverReadIsLinearizable() {
        assertLinearizable(check(
                put(1, "k", "a", 0, 10),
                put(2, "k", "b", 20, NEVER_RETURNED),
                delete(3, "k", 25, NEVER_RETURNED),
                get(3, "k", "a", 30, 40),
                get(1, "k", "a", 1_000, 1_010)));
    }

    @Test
    void pendingGetIsIgnoredWhateverItRecorded() {
        Result result = check(put(1, "k", "a", 0, 10), get(2, "k", "never-written", 20, NEVER_RETURNED));
        assertLinearizable(result);
        assertThat(result.operationsChecked()).isEqualTo(1);
    }

    @Test
    void definitelyFailedPutWhoseValueIsReadIsNotLinearizable() {
        assertViolation(check(put(1, "k", "a", 0, 10).asFailed(), get(2, "k", "a", 20, 30)), "k");
        assertViolation(check(put(1, "k", "a", 0, 10).asFailed(), get(2, "k", "a", 5, 30)), "k");
        assertLinearizable(check(put(1, "k", "a", 0, 10).asFailed(), get(2, "k", null, 20, 30)));
        assertViolation(check(put(1, "k", "a", 0, 10), delete(1, "k", 20, 30).asFailed(),
                get(2, "k", null, 40, 50)), "k");
    }

    @Test
    void onlyTheViolatingKeyIsReported() {
        Result result = check(
                put(1, "a", "1", 0, 10), get(2, "a", "1", 20, 30),
                put(1, "b", "1", 0, 10), put(1, "b", "2", 20, 30), get(2, "b", "1", 40, 50),
                put(1, "c", "1", 0, 10), get(2, "c", "1", 20, 30));
        assertViolation(result, "b");
        assertThat(result.explanation()).doesNotContain("PUT(a,", "GET(a)", "PUT(c,", "GET(c)");
    }

    @Test
    void searchOverItsBoundIsUndecidedButAViolationElsewhereStillWins() {
        List<KvOperation> history = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            history.add(put(i, "k", "v" + i, 0, 100));
        }
        history.add(get(99, "k", "v19", 200, 210));
        Result undecided = LinearizabilityChecker.check(history, 5);
        assertThat(undecided.verdict()).isEqualTo(Verdict.UNDECIDED);
        assertThat(undecided.linearizable()).isFalse();
        assertThat(undecided.key()).isEqualTo("k");
        assertThat(undecided.explanation()).contains("maxStatesPerKey");
        assertLinearizable(LinearizabilityChecker.check(history));

        history.add(get(1, "z", "never-written", 0, 10));
        assertViolation(LinearizabilityChecker.check(history, 5), "z");
    }

    @Test
    void rejectsMalformedOperationsAndBounds() {
        assertThatThrownBy(() -> put(1, "k", null, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> get(1, "k", "a", 10, 9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> put(1, "k", "a", 0, NEVER_RETURNED).asFailed())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new KvOperation(1, KvOperation.Kind.DELETE, "k", "a", 0, 1, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LinearizabilityChecker.check(List.of(), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void randomHistoriesOfARealStoreAreLinearizableAndOneCorruptReadIsCaught() {
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            List<KvOperation> history = HistoryGenerator.generate(
                    random, 2 + random.nextInt(5), 1 + random.nextInt(3), 20 + random.nextInt(150), 0.05);
            Result result = LinearizabilityChecker.check(history);
            assertThat(result.verdict()).as("seed %d: %s", seed, result.explanation())
                    .isEqualTo(Verdict.LINEARIZABLE);

            List<Integer> reads = new ArrayList<>();
            for (int i = 0; i < history.size(); i++) {
                KvOperation op = history.get(i);
                if (op.kind() == KvOperation.Kind.GET && !op.pending() && !op.failed()) {
                    reads.add(i);
                }
            }
            assertThat(reads).as("seed %d has completed reads", seed).isNotEmpty();
            int victim = reads.get(random.nextInt(reads.size()));
            KvOperation read = history.get(victim);
            history.set(victim, get(read.client(), read.key(), "never-written", read.invokedNanos(),
                    read.returnedNanos()));
            Result corrupted = LinearizabilityChecker.check(history);
            assertThat(corrupted.verdict()).as("seed %d corrupted %s", seed, history.get(victim))
                    .isEqualTo(Verdict.NOT_LINEARIZABLE);
            assertThat(corrupted.key()).isEqualTo(read.key());
        }
    }

    @Test
    void twentyThousandOperationsFromEightClientsComplete() {
        List<KvOperation> history = HistoryGenerator.generate(new Random(42), 8, 3, 20_000, 0.0005);
        Result result = LinearizabilityChecker.check(history);
        assertThat(result.verdict()).as(result.explanation()).isEqualTo(Verdict.LINEARIZABLE);
        assertThat(result.operationsChecked()).isGreaterThan(19_000);
    }

    /**
     * Histories produced by a real sequential map: clients issue operations back to back with random gaps and
     * durations, each operation takes effect at a random instant inside its interval, and reads return what the
     * map holds at that instant. Some writes fail (no effect) and some never return (the client stops; the
     * write takes effect at a random later instant or not at all).
     */
    private static final class HistoryGenerator {
        private record Planned(int client, KvOperation.Kind kind, String key, long invoked, long returned,
                               boolean failed, long effectAt) {
        }

        static List<KvOperation> generate(
                Random random, int clients, int keys, int operations, double unreliableWrites) {
            List<Planned> planned = new ArrayList<>();
            long[] clock = new long[clients];
            boolean[] stopped = new boolean[clients];
            for (int i = 0; i < operations; i++) {
                int client = random.nextInt(clients);
                while (stopped[client]) {
                    client = (client + 1) % clients;
                }
                String key = "key" + random.nextInt(keys);
                int dice = random.nextInt(10);
                KvOperation.Kind kind = dice < 5 ? KvOperation.Kind.GET
                        : dice < 9 ? KvOperation.Kind.PUT : KvOperation.Kind.DELETE;
                long invoked = clock[client] + random.nextInt(50);
                long returned = invoked + 1 + random.nextInt(100);
                boolean failed = false;
                long effectAt = invoked + (long) (random.nextDouble() * (returned - invoked + 1));
                boolean lastClient = IntStream.range(0, clients).filter(c -> !stopped[c]).count() == 1;
                if (kind != KvOperation.Kind.GET && random.nextDouble() < unreliableWrites) {
                    if (random.nextBoolean() || lastClient) {
                        failed = true;
                        effectAt = -1;
                    } else {
                        stopped[client] = true;
                        returned = NEVER_RETURNED;
                        effectAt = random.nextBoolean() ? invoked + random.nextInt(10_000) : -1;
                    }
                }
                clock[client] = returned;
                planned.add(new Planned(client, kind, key, invoked, returned, failed, effectAt));
            }
            return replay(planned);
        }

        /** Applies the effective operations to a map in effect order and records what each read saw. */
        private static List<KvOperation> replay(List<Planned> planned) {
            List<Integer> effective = new ArrayList<>();
            for (int i = 0; i < planned.size(); i++) {
                if (planned.get(i).effectAt() >= 0) {
                    effective.add(i);
                }
            }
            effective.sort(Comparator.comparingLong(i -> planned.get(i).effectAt()));
            Map<String, String> store = new HashMap<>();
            String[] values = new String[planned.size()];
            for (int i : effective) {
                Planned p = planned.get(i);
                switch (p.kind()) {
                    case PUT -> store.put(p.key(), values[i] = "v" + i);
                    case DELETE -> store.remove(p.key());
                    case GET -> values[i] = store.get(p.key());
                }
            }
            List<KvOperation> history = new ArrayList<>();
            for (int i = 0; i < planned.size(); i++) {
                Planned p = planned.get(i);
                String value = p.kind() == KvOperation.Kind.PUT ? "v" + i : values[i];
                history.add(new KvOperation(p.client(), p.kind(), p.key(), value, p.invoked(), p.returned(),
                        p.failed()));
            }
            return history;
        }
    }
}
