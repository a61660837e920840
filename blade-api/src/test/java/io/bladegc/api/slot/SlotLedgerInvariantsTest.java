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
 * replays.
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
            Map<String, Long> epochs = new HashMap<>();
            for (int i = 0; i < 150; i++) {
                now += r.nextInt(60);
                remember(step(original, r, now, epochs), epochs);
            }
            SlotLedger restored = SlotLedger.restore(policy, original.state());
            assertThat(restored.state()).as("seed %d", seed).isEqualTo(original.state());
            long seedAfter = r.nextLong();
            Random ra = new Random(seedAfter);
            Random rb = new Random(seedAfter);
            Map<String, Long> ea = new HashMap<>(epochs);
            Map<String, Long> eb = new HashMap<>(epochs);
            for (int i = 0; i < 150; i++) {
                now += ra.nextInt(60);
                rb.nextInt(60);
                Outcome a = step(original, ra, now, ea);
                Outcome b = step(restored, rb, now, eb);
                assertThat(b).as("seed %d step %d after the restore", seed, i).isEqualTo(a);
                remember(a, ea);
                remember(b, eb);
            }
            assertThat(restored.view()).isEqualTo(original.view());
        }
    }

    private static void remember(Outcome o, Map<String, Long> epochs) {
        for (SlotEvent e : o.events()) {
            if (e.type() == SlotEvent.Type.GRANTED) {
                epochs.put(e.node(), e.epoch());
            }
        }
    }

    private static List<Outcome> run(long seed, SlotPolicy policy, int steps) {
        SlotLedger ledger = new SlotLedger(policy);
        Random r = new Random(seed);
        List<Outcome> out = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < steps; i++) {
            now += r.nextInt(60);
            out.add(step(ledger, r, now, new HashMap<>()));
        }
        return out;
    }

    private static void check(long seed, SlotPolicy policy, int steps) {
        SlotLedger ledger = new SlotLedger(policy);
        Random r = new Random(seed);
        Map<String, Long> held = new HashMap<>(); // node -> epoch, rebuilt from events only
        Set<String> live = new HashSet<>();
        Map<String, Long> knownEpochs = new HashMap<>();
        long lastEpoch = 0;
        long now = 0;
        for (int i = 0; i < steps; i++) {
            now += r.nextInt(60);
            Outcome o = step(ledger, r, now, knownEpochs);
            String where = "seed " + seed + " step " + i + " " + o;
            for (SlotEvent e : o.events()) {
                switch (e.type()) {
                    case JOINED -> live.add(e.node());
                    case LEFT, LOST -> live.remove(e.node());
                    case GRANTED -> {
                        assertThat(held).as("one grant per node; " + where).doesNotContainKey(e.node());
                        assertThat(e.epoch()).as("epochs strictly increase; " + where).isGreaterThan(lastEpoch);
                        lastEpoch = e.epoch();
                        held.put(e.node(), e.epoch());
                        knownEpochs.put(e.node(), e.epoch());
                        assertThat(held.size()).as("at most K collecting, more only when due; " + where)
                            .isLessThanOrEqualTo(e.detail().equals(SlotLedger.DUE_DETAIL)
                                ? policy.allowanceWhenDue(live.size()) : policy.allowance(live.size()));
                        long liveCollecting = held.keySet().stream().filter(live::contains).count();
                        assertThat(live.size() - liveCollecting).as("min healthy; " + where)
                            .isGreaterThanOrEqualTo(policy.minHealthy());
                    }
                    case RELEASED, EXPIRED -> assertThat(held.remove(e.node())).as(where).isEqualTo(e.epoch());
                    case CANCELLED -> {
                        if (e.epoch() != 0) {
                            assertThat(held.remove(e.node())).as(where).isEqualTo(e.epoch());
                        }
                    }
                    default -> {
                    }
                }
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
    private static Outcome step(SlotLedger l, Random r, long now, Map<String, Long> epochs) {
        String node = NODES[r.nextInt(NODES.length)];
        long epoch = epochs.getOrDefault(node, 0L) - (r.nextInt(4) == 0 ? 1 : 0);
        return switch (r.nextInt(9)) {
            case 0 -> l.join(node, now);
            case 1 -> l.heartbeat(node, r.nextInt(400) - 100, now); // a negative due time: unknown
            case 2 -> l.leave(node, now);
            case 3, 4 -> l.acquire(node, 1 + r.nextInt(3), r.nextInt(200), r.nextBoolean() ? 0 : r.nextInt(300), now);
            case 5 -> l.release(node, epoch, r.nextInt(50), now);
            case 6 -> l.renew(node, epoch, now);
            case 7 -> l.cancel(node, 1 + r.nextInt(3), now);
            default -> new Outcome(Status.OK, null, -1, "", l.tick(now));
        };
    }
}
