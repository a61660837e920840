package io.bladegc.benchmarks.raftkv;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.Grant;
import io.bladegc.ratis.RaftBlade;
import io.bladegc.ratis.SlotClient;
import io.bladegc.ratis.SlotGroupView;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A Raft peer frozen (SIGSTOP) while it holds a GC slot, with three {@link KvServer} JVMs collecting under grants
 * while clients write: while it is frozen nobody else is granted (it holds the one slot until its lease ends, and
 * after that it counts as down, so a second peer collecting would leave no live majority); its grant expires at the
 * lease deadline, decided in the log; woken (SIGCONT), it does not get to use the expired grant (it fences the grant
 * before collecting, or its late release is refused or does not get through); and grants resume.
 */
@Tag("cluster")
class RaftPeerFaultIT {
    @Test
    void aFrozenHolderLosesItsSlotAtTheDeadlineAndNobodyElseCollectsMeanwhile() throws Exception {
        try (KvCluster cluster = KvCluster.start("frozen-holder");
             SlotClient slots = SlotClient.connect(RaftBlade.slotGroup(cluster.group()), new RaftProperties(),
                 Duration.ofSeconds(2))) {
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                Thread t = new Thread(() -> write(cluster, running), "writer-" + w);
                t.start();
                writers.add(t);
            }
            Grant held = null;
            RaftPeerId frozen = null;
            long stoppedAtMillis = 0; // wall clock: the peer is stopped only after this
            long wokenFromMillis = 0; // and runs again only after this
            try {
                for (int attempt = 0; attempt < 20 && held == null; attempt++) {
                    Grant g = awaitAGrant(slots);
                    frozen = RaftPeerId.valueOf(g.node());
                    stoppedAtMillis = System.currentTimeMillis();
                    signal(cluster.pid(frozen), "STOP");
                    if (holds(slots, g) && frozenThroughItsLease(slots, g)) {
                        held = g;
                    } else { // its release got through before the signal took hold: let it go, catch another
                        signal(cluster.pid(frozen), "CONT");
                    }
                }
                assertThat(held).as("a peer caught holding a slot within 20 attempts").isNotNull();

                Grant expired = held;
                awaitTrue(() -> slots.view().slots().collecting().stream().noneMatch(g -> g.epoch() == expired.epoch()),
                    "the frozen grant expired at its deadline", 5);
            } finally {
                if (frozen != null) {
                    wokenFromMillis = System.currentTimeMillis();
                    signal(cluster.pid(frozen), "CONT");
                }
            }
            // Woken, the peer ends the request it was frozen in (one line per request, named by its id) and never
            // starts a collection under the expired grant. Where the stop caught it decides the line, and every one
            // of these is the protocol working: frozen before it saw the grant, the line never names that epoch (the
            // ask that was out failed: "left to the JVM", or it asks again and may be granted anew); frozen after
            // it saw it but before collecting, its lease, timed on its own monotonic clock, has ended: "fenced",
            // before its drain or after it (a peer that finds itself leader again hands off again first, then is
            // fenced the same way), or the second hand-off fails: "cancelled"; frozen inside the collection it had
            // started within the lease, or after it with its release on the way, the release is refused as stale or
            // does not get through. Not allowed: a collection under the expired epoch that began after waking, and a
            // release of it the ledger took. A collection Blade began before the freeze passes either of two
            // tests. Its T_gc holds the freeze when the stop caught the forcing (filling eden, or the JVM between the
            // allocation that asks for the collection and its pause: then the pause itself begins after waking, past
            // the lease, seen twice in CI on 2026-11-27; no check can close that last window, a lease's limit). Its
            // pause, in the peer's own GC log (wall clock, the ledger's clock on this machine), began after the grant
            // and before `kill -CONT` when the collection was over before the stop caught the release (CI: T_gc
            // 36.4 ms, the release "not delivered"). One begun after waking passes neither: a short T_gc and a pause
            // after `kill -CONT`.
            Pattern line = Pattern.compile("Blade raft " + frozen + " GC #" + held.gcId() + " [^\\n]*");
            RaftPeerId woken = frozen;
            String[] found = new String[1];
            awaitTrue(() -> {
                Matcher m = line.matcher(Files.readString(cluster.log(woken)));
                found[0] = m.find() ? m.group() : null;
                return found[0] != null;
            }, woken + "'s line for GC #" + held.gcId() + ", the collection it held epoch " + held.epoch() + " for", 60);
            System.out.printf("RaftPeerFaultIT: frozen holding %s; woken, it logged: %s%n", held, found[0]);
            assertThat(found[0]).as("the expired grant's release taken by the ledger")
                .doesNotContainPattern("granted \\(epoch " + held.epoch() + "[,)].*; released$");
            Matcher collected = Pattern.compile("granted \\(epoch " + held.epoch() + "[,)].*T_gc ([0-9.]+) ms "
                + "\\(COLLECTED\\)").matcher(found[0]);
            if (collected.find()) {
                Grant expired = held;
                long frozenMillis = wokenFromMillis - stoppedAtMillis;
                long wokenFrom = wokenFromMillis;
                List<GcPauses> pauses = GcPauses.read(woken.toString(), cluster.gcLog(woken));
                boolean forcingCaught = Double.parseDouble(collected.group(1)) > frozenMillis / 2.0;
                boolean pauseBeforeWaking = pauses.stream()
                    .anyMatch(p -> p.startMillis() >= expired.grantedAt() - 1.0 && p.startMillis() <= wokenFrom);
                assertThat(forcingCaught || pauseBeforeWaking).as("a collection under the expired grant %s, begun "
                    + "before the freeze (%d ms, woken at %d): its T_gc holds the freeze, or a pause of %s began "
                    + "before it was woken: %s", expired, frozenMillis, wokenFrom, woken, pauses).isTrue();
            }
            long after = held.epoch();
            awaitTrue(() -> slots.view().slots().epoch() > after, "grants resume after the frozen peer is back", 60);
            running.set(false);
            for (Thread t : writers) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }

    /**
     * Samples the ledger until 2 s past {@code g}'s deadline: never more than one of three collecting, and no other
     * grant made before that deadline (log time). A release sent just before the stop took hold may reach the ledger
     * only after the sample that found {@code g} held (when the frozen peer led the slot group, once the next leader
     * commits it): the ledger then records a release by that peer within {@code g}'s lease, which a frozen peer
     * cannot have sent later, and the attempt does not count.
     *
     * @return {@code false} when {@code g} turned out released before the freeze
     */
    private static boolean frozenThroughItsLease(SlotClient slots, Grant g) throws Exception {
        while (System.currentTimeMillis() < g.deadline() + 2_000) {
            try {
                SlotGroupView view = slots.view();
                List<Grant> collecting = view.slots().collecting();
                assertThat(collecting).as("peers collecting at once, at most one of three").hasSizeLessThanOrEqualTo(1);
                Long released = view.lastCollected().get(g.node());
                if (released != null && released >= g.grantedAt() && released <= g.deadline()) {
                    System.out.printf("RaftPeerFaultIT: %s released %s just before it froze (the ledger took it at "
                        + "%d); another attempt%n", g.node(), g, released);
                    return false;
                }
                for (Grant other : collecting) {
                    if (other.epoch() != g.epoch()) {
                        assertThat(other.grantedAt()).as("a grant while %s is frozen holding %s: %s", g.node(), g,
                            other).isGreaterThanOrEqualTo(g.deadline());
                    }
                }
            } catch (IOException e) {
                // the slot group's leader was the frozen peer: no sample until another is elected
            }
            Thread.sleep(50);
        }
        return true;
    }

    private static Grant awaitAGrant(SlotClient slots) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                List<Grant> collecting = slots.view().slots().collecting();
                if (!collecting.isEmpty()) {
                    return collecting.get(0);
                }
            } catch (IOException e) {
                // leader change in the slot group
            }
            Thread.sleep(2);
        }
        throw new AssertionError("no peer collected under a grant within 60 s");
    }

    private static boolean holds(SlotClient slots, Grant g) throws Exception {
        for (int i = 0; i < 50; i++) {
            try {
                return slots.view().slots().collecting().stream().anyMatch(c -> c.epoch() == g.epoch());
            } catch (IOException e) {
                Thread.sleep(100); // the frozen peer led the slot group: wait for the next leader
            }
        }
        return false;
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    private static void awaitTrue(Check check, String what, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (IOException e) {
                // not yet
            }
            Thread.sleep(50);
        }
        throw new AssertionError("timed out after " + seconds + " s waiting for: " + what);
    }

    private static void signal(long pid, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
    }

    private static void write(KvCluster cluster, AtomicBoolean running) {
        String value = "y".repeat(2048);
        try (KvClient client = KvClient.connect(cluster.group())) {
            for (int i = 0; running.get() && i < 200_000; i++) {
                try {
                    client.put("k" + ThreadLocalRandom.current().nextInt(5_000), value);
                } catch (IOException e) {
                    // a peer frozen or a hand-off: the next put tries again
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
