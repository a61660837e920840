package io.bladegc.api.slot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Random operation sequences against the ledger, with the invariants checked after every step by code that does
 * not share the ledger's logic: it rebuilds the picture from the events alone. Seeds are fixed, so a failure
 * replays. The callers number their GC requests upwards and now and then send an old one again (an acquire or a
 * cancel that arrives late).
 */
class SlotLedgerInvariantsTest {
    private static final String[] NODES = {"n1", "n2", "n3", "n4", "n5"};

    @Test
    void invariantsHoldOverRandomHistories() {
        for (long seed = 1; seed <= 300; seed++) {
            SlotPolicy policy = new SlotPolicy(1 + (int) (seed % 2), seed % 3 == 0 ? 0.4 : 0, (int) (seed % 3), 200,
                150, (int) (seed % 5)); // beyond K for due requests: never (0, or not above K) or up to 3 or 4
            check(seed, policy, 400);
        }
    }

    @Test
    void theSameCallsGiveTheSameResults() {
        SlotPolicy policy = new SlotPolicy(2, 0, 1, 200, 150, 3);
        assertThat(run(42, policy, 500)).isEqualTo(run(42, policy, 500));
    }

    @Test
    void aRestoredLedgerAnswersEveryLaterCallAsTheOriginal() {
        for (long seed = 1; seed <= 100; seed++) {
            SlotPolicy policy = new SlotPolicy(2, 0, 1, 200, 150, 3);
            SlotLedger original = new SlotLedger(policy);
            Random r = new Random(seed);
            long now = 0;
            Callers callers = new Callers();
            for (int i = 0; i < 150; i++) {
                now += r.nextInt(60);
                callers.remember(step(original, r, now, callers));
            }
            SlotLedger restored = SlotLedger.restore(policy, original.state());
            assertThat(restored.state()).as("seed %d", seed).isEqualTo(original.state());
            long seedAfter = r.nextLong();
            Random ra = new Random(seedAfter);
            Random rb = new Random(seedAfter);
            Callers ca = callers.copy();
            Callers cb = callers.copy();
            for (int i = 0; i < 150; i++) {
                now += ra.nextInt(60);
                rb.nextInt(60);
                Outcome a = step(original, ra, now, ca);
                Outcome b = step(restored, rb, now, cb);
                assertThat(b).as("seed %d step %d after the restore", seed, i).isEqualTo(a);
                ca.remember(a);
                cb.remember(b);
            }
            assertThat(restored.view()).isEqualTo(original.view());
        }
    }

    /** What the callers know: each node's latest grant epoch and GC id, and whom the latest step joined. */
    private static final class Callers {
        final Map<String, Long> epochs = new HashMap<>();
        final Map<String, Long> gcIds = new HashMap<>();
        String joined;

        Callers copy() {
            Callers c = new Callers();
            c.epochs.putAll(epochs);
            c.gcIds.putAll(gcIds);
            return c;
        }

        void remember(Outcome o) {
            for (SlotEvent e : o.events()) {
                if (e.type() == SlotEvent.Type.GRANTED) {
                    epochs.put(e.node(), e.epoch());
                }
            }
        }

        /** @return a GC id of {@code node}'s: mostly its current one, often a new one, now and then an older one */
        long gcId(String node, Random r) {
            long current = gcIds.getOrDefault(node, 1L);
            return switch (r.nextInt(6)) {
                case 0, 1 -> {
                    gcIds.put(node, current + 1);
                    yield current + 1;
                }
                case 2 -> Math.max(1, current - 1 - r.nextInt(2));
                default -> current;
            };
        }
    }

    private static List<Outcome> run(long seed, SlotPolicy policy, int steps) {
        SlotLedger ledger = new SlotLedger(policy);
        Random r = new Random(seed);
        List<Outcome> out = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < steps; i++) {
            now += r.nextInt(60);
            out.add(step(ledger, r, now, new Callers()));
        }
        return out;
    }

    private static void check(long seed, SlotPolicy policy, int steps) {
        SlotLedger ledger = new SlotLedger(policy);
        Random r = new Random(seed);
        Map<String, Long> held = new HashMap<>(); // node -> epoch, rebuilt from events only
        Map<String, Long> ended = new HashMap<>(); // node -> its newest cancelled, released or expired GC id
        Set<String> live = new HashSet<>();
        Callers callers = new Callers();
        long lastEpoch = 0;
        long now = 0;
        for (int i = 0; i < steps; i++) {
            now += r.nextInt(60);
            Outcome o = step(ledger, r, now, callers);
            String where = "seed " + seed + " step " + i + " " + o;
            for (SlotEvent e : o.events()) {
                if (e.type() == SlotEvent.Type.QUEUED || e.type() == SlotEvent.Type.GRANTED) {
                    assertThat(e.gcId()).as("an ended request is never queued or granted again; " + where)
                        .isGreaterThan(ended.getOrDefault(e.node(), 0L));
                }
                switch (e.type()) {
                    case JOINED -> live.add(e.node());
                    case LEFT, LOST -> {
                        live.remove(e.node());
                        ended.remove(e.node());
                    }
                    case GRANTED -> {
                        assertThat(held).as("one grant per node; " + where).doesNotContainKey(e.node());
                        assertThat(e.epoch()).as("epochs strictly increase; " + where).isGreaterThan(lastEpoch);
                        lastEpoch = e.epoch();
                        held.put(e.node(), e.epoch());
                        assertThat(held.size()).as("at most K collecting, more only when due; " + where)
                            .isLessThanOrEqualTo(e.detail().equals(SlotLedger.DUE_DETAIL)
                                ? policy.allowanceWhenDue(live.size()) : policy.allowance(live.size()));
                        long liveCollecting = held.keySet().stream().filter(live::contains).count();
                        assertThat(live.size() - liveCollecting).as("min healthy; " + where)
                            .isGreaterThanOrEqualTo(policy.minHealthy());
                    }
                    case RELEASED, EXPIRED -> {
                        assertThat(held.remove(e.node())).as(where).isEqualTo(e.epoch());
                        ended.merge(e.node(), e.gcId(), Math::max);
                    }
                    case CANCELLED -> {
                        if (e.epoch() != 0) {
                            assertThat(held.remove(e.node())).as(where).isEqualTo(e.epoch());
                        }
                        ended.merge(e.node(), e.gcId(), Math::max);
                    }
                    default -> {
                    }
                }
            }
            callers.remember(o);
            if (callers.joined != null) {
                ended.remove(callers.joined); // a join counts the node's ids anew
            }
            SlotView v = ledger.view();
            assertThat(v.collecting()).as("view matches the events; " + where).extracting(Grant::node)
                .containsExactlyInAnyOrderElementsOf(held.keySet());
            assertThat(v.members()).as(where).containsExactlyInAnyOrderElementsOf(live);
            for (Grant g : v.collecting()) {
                assertThat(g.deadline()).as("no grant outlives its lease; " + where).isGreaterThan(now);
            }
        }
    }

    /** One random call; releases and renewals use a random known epoch, often a stale one. */
    private static Outcome step(SlotLedger l, Random r, long now, Callers callers) {
        String node = NODES[r.nextInt(NODES.length)];
        long epoch = callers.epochs.getOrDefault(node, 0L) - (r.nextInt(4) == 0 ? 1 : 0);
        callers.joined = null;
        return switch (r.nextInt(9)) {
            case 0 -> {
                callers.joined = node;
                yield l.join(node, now);
            }
            case 1 -> l.heartbeat(node, r.nextInt(400) - 100, now); // a negative due time: unknown
            case 2 -> l.leave(node, now);
            case 3, 4 -> l.acquire(node, new Ask(callers.gcId(node, r), r.nextInt(200), r.nextInt(4) == 0,
                r.nextInt(600), r.nextBoolean() ? 0 : r.nextInt(300)), now);
            case 5 -> l.release(node, epoch, r.nextInt(50), now);
            case 6 -> l.renew(node, epoch, now);
            case 7 -> l.cancel(node, callers.gcId(node, r), now);
            default -> new Outcome(Status.OK, null, -1, "", l.tick(now));
        };
    }
}
