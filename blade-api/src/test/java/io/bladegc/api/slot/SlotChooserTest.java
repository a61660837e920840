package io.bladegc.api.slot;

import static io.bladegc.api.slot.SlotLedgerTest.ledgerWith;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Who goes next, through the ledger that checks and grants what {@link SlotChooser} proposes. */
class SlotChooserTest {
    /** K = 1, a due request may go beyond it while fewer than 2 collect. */
    private static final SlotPolicy K1_DUE2 = new SlotPolicy(1, 0, 1, 10_000, 5_000, 2);

    @Test
    void aResentAcquireCarriesTheNodesNewestLead() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000), "a", "b", "c");
        Grant a = l.acquire("a", 1, 100, 0).grant();
        l.acquire("b", 1, 300, 0); // urgent at 300
        l.acquire("c", 1, 200, 0); // urgent at 200: first
        assertThat(l.acquire("b", 1, 100, 50).queuePosition()).as("asked again at 50 with 100 ms left: urgent at 150")
            .isEqualTo(1);
        assertThat(l.view().queue()).extracting(QueueEntry::node, QueueEntry::urgentAt).containsExactly(
            org.assertj.core.groups.Tuple.tuple("b", 150L), org.assertj.core.groups.Tuple.tuple("c", 200L));
        assertThat(l.release("a", a.epoch(), 10, 60).events()).extracting(SlotEvent::type, SlotEvent::node)
            .contains(org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.GRANTED, "b"));
    }

    @Test
    void aFullCollectionAskedForIsNeverGrantedBeyondK() {
        SlotLedger l = ledgerWith(K1_DUE2, "a", "b", "c");
        Grant a = l.acquire("a", 1, 100, 0).grant();
        Outcome b = l.acquire("b", new Ask(1, 100, true, 500, 0), 0); // due within the margin, but a full one
        assertThat(b.status()).as("its half-second pause would keep a second node out").isEqualTo(Status.QUEUED);
        Outcome c = l.acquire("c", new Ask(1, 100, false, 40, 0), 0);
        assertThat(c.status()).isEqualTo(Status.GRANTED);
        assertThat(c.events()).extracting(SlotEvent::detail).contains(SlotLedger.DUE_DETAIL);
        l.release("c", c.grant().epoch(), 40, 50);
        l.release("a", a.epoch(), 30, 60);
        Grant full = l.grantOf("b");
        assertThat(full).as("granted within K once a slot is free").isNotNull();
        assertThat(full.full()).as("a grant for a full collection says so").isTrue();
    }

    @Test
    void dueRequestsBeyondKGoShortestHoldFirst() {
        SlotLedger l = ledgerWith(K1_DUE2, "a", "b", "c", "d");
        l.acquire("a", 1, 100, 0);
        l.acquire("b", new Ask(1, 400, false, 80, 0), 0); // urgent at 400, holds 80 ms
        l.acquire("c", new Ask(1, 450, false, 20, 0), 0); // urgent at 450, holds 20 ms
        assertThat(l.tick(100)).as("neither due within 150 ms yet").isEmpty();
        assertThat(l.tick(310)).extracting(SlotEvent::type, SlotEvent::node, SlotEvent::detail).containsExactly(
            org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.GRANTED, "c", SlotLedger.DUE_DETAIL));
    }

    @Test
    void aCancelledFullRequestForgetsTheMembersNextFullCollection() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000), "a", "b", "c");
        l.acquire("a", 1, 100, 0);
        l.heartbeat("b", 5_000, 400, 0);
        l.heartbeat("c", 5_000, 900, 0);
        l.acquire("b", new Ask(1, 300, true, 500, 0), 0);
        l.acquire("c", Ask.young(1, 800), 0);
        l.cancel("b", 1, 350); // its JVM ran the full collection on its own
        l.cancel("c", 1, 360); // its JVM ran a young one
        assertThat(l.state().members()).extracting(LedgerState.Member::node, LedgerState.Member::fullDueAt)
            .as("b's next full collection is unknown until it says, c's still comes at 900")
            .contains(org.assertj.core.groups.Tuple.tuple("b", Long.MAX_VALUE),
                org.assertj.core.groups.Tuple.tuple("c", 900L));
    }

    @Test
    void noFullCollectionIsOfferedInPlaceWhileAnotherRuns() {
        SlotLedger l = ledgerWith(new SlotPolicy(2, 0, 1, 10_000, 5_000), "a", "b", "c", "d");
        assertThat(l.acquire("a", new Ask(1, 100, true, 500, 0), 0).grant().full()).isTrue();
        Outcome b = l.acquire("b", new Ask(1, 100, false, 40, 400), 0); // nobody waits, nobody due: it would fit
        assertThat(b.status()).isEqualTo(Status.GRANTED);
        assertThat(b.grant().full()).as("two full collections at once: half the cluster out for half a second")
            .isFalse();
    }

    @Test
    void whileAMemberIsOutTheOthersComeDueSoonerByItsShareOfTheLoad() {
        assertThat(DueTimes.whileOut(1_000, 0, 600, 3)).as("900 ms of headroom filled at 1.5x for 600 ms, then 100 ms")
            .isEqualTo(700);
        assertThat(DueTimes.whileOut(600, 0, 600, 3)).as("filled within the time out, at 1.5x").isEqualTo(400);
        assertThat(DueTimes.whileOut(600, 0, 600, 1)).as("nobody else serves: nobody takes its share").isEqualTo(600);
        assertThat(DueTimes.whileOut(Long.MAX_VALUE, 0, 600, 3)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aFullCollectionNotYetDueLetsAMemberComingDueDuringItsPauseGoFirst() {
        // a Raft group: one of three collects, nobody beyond; b's old generation fills, c's eden comes due in 200 ms
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000), "a", "b", "c");
        l.heartbeat("c", 200, -1, 0);
        Outcome b = l.acquire("b", new Ask(1, 600, true, 250, 0), 0);
        assertThat(b.status()).as("granted now, its 250 ms pause would make c escape while c queues behind it")
            .isEqualTo(Status.QUEUED);
        Outcome c = l.acquire("c", Ask.young(1, 150), 50);
        assertThat(c.status()).as("c asks later than b and is less urgent, yet goes first").isEqualTo(Status.GRANTED);
        l.release("c", c.grant().epoch(), 20, 90);
        assertThat(l.grantOf("b")).as("then b, with nobody else due during its pause").isNotNull()
            .extracting(Grant::full).isEqualTo(true);
    }

    @Test
    void aFullCollectionThatIsDueItselfGoesThoughOthersComeDueDuringIt() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000), "a", "b", "c");
        l.heartbeat("c", 200, -1, 0);
        assertThat(l.acquire("b", new Ask(1, 100, true, 250, 0), 0).status())
            .as("its JVM collects within the due margin: waiting would only let it escape").isEqualTo(Status.GRANTED);
    }

    @Test
    void aFullCollectionGoesAtOnceWhereWhoComesDueMayCollectBeyondK() {
        SlotLedger l = ledgerWith(K1_DUE2, "a", "b", "c");
        l.heartbeat("c", 200, -1, 0);
        assertThat(l.acquire("b", new Ask(1, 600, true, 250, 0), 0).status())
            .as("c can be granted as due beside it").isEqualTo(Status.GRANTED);
    }
}
