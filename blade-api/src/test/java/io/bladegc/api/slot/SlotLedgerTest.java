package io.bladegc.api.slot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SlotLedgerTest {
    private static final SlotPolicy K1 = new SlotPolicy(1, 0, 1, 1_000, 500);

    /** A young collection of unknown length, offering a full one of {@code fullOfferMillis} in its place (0: none). */
    private static Ask offer(long gcId, long leadMillis, long fullOfferMillis) {
        return new Ask(gcId, leadMillis, false, 0, fullOfferMillis);
    }

    /** @return a ledger under {@code policy} whose members {@code nodes} joined at 0 */
    static SlotLedger ledgerWith(SlotPolicy policy, String... nodes) {
        SlotLedger ledger = new SlotLedger(policy);
        for (String n : nodes) {
            ledger.join(n, 0);
        }
        return ledger;
    }

    @Test
    void oneCollectsTheOthersQueueMostUrgentFirst() {
        SlotLedger l = ledgerWith(K1, "a", "b", "c", "d");
        Outcome a = l.acquire("a", 1, 100, 10);
        assertThat(a.status()).isEqualTo(Status.GRANTED);
        assertThat(l.acquire("b", 1, 300, 10).queuePosition()).isEqualTo(1);
        Outcome c = l.acquire("c", 1, 50, 20); // more urgent than b: 70 < 310
        assertThat(c.status()).isEqualTo(Status.QUEUED);
        assertThat(c.queuePosition()).isEqualTo(1);
        Outcome released = l.release("a", a.grant().epoch(), 12, 30);
        assertThat(released.status()).isEqualTo(Status.OK);
        assertThat(released.events()).extracting(SlotEvent::type, SlotEvent::node)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.RELEASED, "a"),
                org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.GRANTED, "c"));
        assertThat(l.view().collecting()).extracting(Grant::node).containsExactly("c");
    }

    @Test
    void aFullCollectionOfferedIsTakenWhenNobodyElseIsDueBeforeItEnds() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000), "a", "b", "c");
        l.heartbeat("b", 2_000, 0); // b due at 2,000
        l.heartbeat("c", 900, 0); // c due at 900
        Outcome a = l.acquire("a", offer(1, 50, 400), 0); // full until 400 + margin: ends before c is due
        assertThat(a.grant().full()).isTrue();
        assertThat(a.events()).extracting(SlotEvent::detail).contains("full");
        l.release("a", a.grant().epoch(), 400, 400);
        Outcome again = l.acquire("a", offer(2, 50, 500), 400); // until 400 + 500 + 100 = 1,000: c is due at 900
        assertThat(again.status()).isEqualTo(Status.GRANTED);
        assertThat(again.grant().full()).as("c comes due during it").isFalse();
    }

    @Test
    void noFullCollectionWhileOthersWaitAndTheOffererKeepsItsPlace() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000), "a", "b", "c");
        Grant a = l.acquire("a", 1, 50, 0).grant();
        assertThat(a.full()).as("not offered").isFalse();
        assertThat(l.acquire("b", offer(1, 100, 300), 10).status()).isEqualTo(Status.QUEUED);
        assertThat(l.view().queue()).extracting(q -> q.ask().fullOfferMillis()).containsExactly(300L);
        assertThat(l.acquire("c", offer(1, 200, 0), 10).status()).isEqualTo(Status.QUEUED);
        Outcome released = l.release("a", a.epoch(), 5, 20);
        Grant b = l.grantOf("b");
        assertThat(b).isNotNull();
        assertThat(b.full()).as("c waits behind b").isFalse();
        assertThat(released.events()).extracting(SlotEvent::type).contains(SlotEvent.Type.GRANTED);
        l.release("b", b.epoch(), 5, 30);
        assertThat(l.grantOf("c").full()).as("c offered none").isFalse();
    }

    @Test
    void aDueRequestIsGrantedBeyondKWhileMinHealthyHolds() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000, 2), "a", "b", "c");
        Grant a = l.acquire("a", 1, 50, 0).grant(); // a long full collection, say
        Outcome b = l.acquire("b", 1, 400, 10); // its JVM collects at 410: not due yet
        assertThat(b.status()).isEqualTo(Status.QUEUED);
        assertThat(l.tick(200)).as("410 is more than the margin away").isEmpty();
        List<SlotEvent> due = l.tick(410 - SlotLedger.DUE_MARGIN_MILLIS);
        assertThat(due).extracting(SlotEvent::type, SlotEvent::node, SlotEvent::detail)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.GRANTED, "b", SlotLedger.DUE_DETAIL));
        Outcome c = l.acquire("c", 1, 0, 300); // due at once, but a third collector would leave nobody serving
        assertThat(c.status()).isEqualTo(Status.QUEUED);
        l.release("a", a.epoch(), 400, 400);
        assertThat(l.grantOf("c")).as("granted within K once a slot is free").isNotNull();
        assertThat(l.view().collecting()).extracting(Grant::node).containsExactlyInAnyOrder("b", "c");
    }

    @Test
    void withoutTheDueAllowanceADueRequestWaitsForK() {
        SlotLedger l = ledgerWith(K1, "a", "b", "c");
        l.acquire("a", 1, 50, 0);
        assertThat(l.acquire("b", 1, 0, 10).status()).isEqualTo(Status.QUEUED);
        assertThat(l.tick(500)).isEmpty();
        assertThat(l.view().collecting()).extracting(Grant::node).containsExactly("a");
    }

    @Test
    void withTheDueAllowanceAFullCollectionIsTakenWhenThoseDueDuringItCanCollectBeyondK() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000, 2), "a", "b", "c");
        l.heartbeat("b", 300, 0); // b comes due during a's full collection: it may then collect beyond K
        l.heartbeat("c", 2_000, 0);
        Grant a = l.acquire("a", offer(1, 50, 500), 0).grant();
        assertThat(a.full()).isTrue();
        Outcome b = l.acquire("b", 1, 0, 300);
        assertThat(b.events()).extracting(SlotEvent::detail).as("granted as due, beyond K")
            .contains(SlotLedger.DUE_DETAIL);
        l.release("b", l.grantOf("b").epoch(), 30, 330);
        l.release("a", a.epoch(), 500, 600);
        l.heartbeat("b", 300, 600);
        l.heartbeat("c", 300, 600); // both come due during it: one of them would collect with requests inside
        assertThat(l.acquire("a", offer(2, 50, 500), 600).grant().full()).isFalse();
    }

    @Test
    void whenAnotherMembersFullCollectionComesDueSoonAfterAnOfferIsTakenThoughOthersComeDueDuringIt() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000, 2), "a", "b", "c");
        l.heartbeat("b", 100, 5_000, 0);
        l.heartbeat("c", 300, 8_000, 0);
        Grant a = l.acquire("a", offer(1, 50, 500), 0).grant();
        assertThat(a.full()).as("b and c come due during it, and no other full collection is near").isFalse();
        l.release("a", a.epoch(), 30, 40);
        l.heartbeat("b", 100, 960, 40);
        Grant again = l.acquire("a", offer(2, 50, 500), 50).grant();
        assertThat(again.full()).as("b's full collection comes due at 1,000, at 700 while a is out and b takes half its"
            + " share, right after this one (650): a runs its own now, and b and c their young ones beyond K"
            + " meanwhile").isTrue();
        l.release("a", again.epoch(), 500, 600);
        assertThat(l.state().members()).extracting(LedgerState.Member::node, LedgerState.Member::fullDueAt)
            .as("a's is unknown until it says again").containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple("a", Long.MAX_VALUE),
                org.assertj.core.groups.Tuple.tuple("b", 1_000L), org.assertj.core.groups.Tuple.tuple("c", 8_000L));
    }

    @Test
    void anOfferIsNotTakenWhenAnotherMembersFullCollectionComesDueDuringIt() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000, 2), "a", "b", "c");
        l.heartbeat("b", 5_000, 400, 0); // b's full collection would start while a's runs: b's goes first
        assertThat(l.acquire("a", offer(1, 50, 500), 0).grant().full()).isFalse();
        l.release("a", l.grantOf("a").epoch(), 30, 40);
        l.heartbeat("b", 5_000, -1, 40); // b collected: its next full collection is unknown, and so no longer near
        assertThat(l.acquire("a", offer(2, 50, 500), 50).grant().full()).as("nobody is due during it").isTrue();
    }

    @Test
    void ofTwoMembersInStepTheOneWhoseFullCollectionComesDueFirstRunsItNow() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000, 2), "a", "b", "c");
        l.heartbeat("a", 5_000, 300, 0);
        l.heartbeat("b", 5_000, 400, 0); // both within a's pause: one of them must go now, the first due
        Grant b = l.acquire("b", offer(1, 50, 500), 0).grant();
        assertThat(b.full()).as("a's full collection comes due first: a goes first").isFalse();
        l.release("b", b.epoch(), 20, 30);
        assertThat(l.acquire("a", offer(1, 50, 500), 40).grant().full()).as("b's comes due after a's own").isTrue();
    }

    @Test
    void aGrantBeyondKNeverRunsTheFullCollectionOffered() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000, 2), "a", "b", "c");
        l.acquire("a", 1, 50, 0);
        Outcome b = l.acquire("b", offer(1, 100, 300), 10); // due within the margin, offers a full collection
        assertThat(b.status()).isEqualTo(Status.GRANTED);
        assertThat(b.grant().full()).isFalse();
    }

    @Test
    void aMemberThatCollectedOrLeftIsNoLongerDue() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 10_000, 5_000), "a", "b", "c");
        Grant b = l.acquire("b", 1, 100, 0).grant(); // b due at 100, and holding
        assertThat(l.acquire("a", offer(1, 50, 400), 1).status()).isEqualTo(Status.QUEUED);
        l.release("b", b.epoch(), 30, 40); // b collected: its due time goes
        assertThat(l.grantOf("a").full()).isTrue();
        l.release("a", l.grantOf("a").epoch(), 400, 500);
        l.heartbeat("c", 100, 500);
        assertThat(l.acquire("a", offer(2, 50, 400), 510).grant().full()).as("c is due at 600").isFalse();
        l.release("a", l.grantOf("a").epoch(), 20, 530);
        l.leave("c", 540);
        assertThat(l.acquire("a", offer(3, 50, 400), 550).grant().full()).as("c left").isTrue();
    }

    @Test
    void dueTimesAndOffersSurviveARestore() {
        SlotPolicy policy = new SlotPolicy(1, 0, 1, 10_000, 5_000);
        SlotLedger l = ledgerWith(policy, "a", "b", "c");
        l.heartbeat("c", 700, 0);
        l.acquire("a", 1, 50, 0);
        l.acquire("b", offer(1, 100, 300), 0);
        SlotLedger restored = SlotLedger.restore(policy, l.state());
        assertThat(restored.state()).isEqualTo(l.state());
        l.heartbeat("c", 700, 2_000, 0);
        assertThat(SlotLedger.restore(policy, l.state()).state()).isEqualTo(l.state());
        assertThat(l.state().members()).extracting(LedgerState.Member::fullDueAt).contains(2_000L);
        Outcome a = l.release("a", 1, 5, 10);
        assertThat(restored.release("a", 1, 5, 10)).isEqualTo(a);
        assertThat(l.grantOf("b").full()).as("c is due at 700, after 10 + 300 + 100").isTrue();
    }

    @Test
    void acquireIsIdempotentPerNodeAndGcId() {
        SlotLedger l = ledgerWith(K1, "a", "b", "c");
        Grant g = l.acquire("a", 7, 100, 0).grant();
        Outcome again = l.acquire("a", 7, 100, 5);
        assertThat(again.status()).isEqualTo(Status.GRANTED);
        assertThat(again.grant()).isEqualTo(g);
        assertThat(again.events()).isEmpty();
        assertThat(l.acquire("a", 8, 100, 6).status()).as("another GC while holding a grant")
            .isEqualTo(Status.REJECTED);
        l.acquire("b", 1, 100, 7);
        l.acquire("b", 1, 100, 8);
        assertThat(l.view().queue()).hasSize(1);
    }

    @Test
    void aSilentHolderLosesItsGrantAtTheDeadlineAndItsLateReleaseIsRejected() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 1_000, 60_000), "a", "b", "c");
        Grant a = l.acquire("a", 1, 100, 0).grant();
        l.acquire("b", 1, 100, 0);
        assertThat(l.tick(999)).isEmpty();
        List<SlotEvent> events = l.tick(1_000);
        assertThat(events).extracting(SlotEvent::type).containsExactly(SlotEvent.Type.EXPIRED,
            SlotEvent.Type.GRANTED);
        Grant b = l.view().collecting().get(0);
        assertThat(b.node()).isEqualTo("b");
        assertThat(b.epoch()).isGreaterThan(a.epoch());
        Outcome late = l.release("a", a.epoch(), 5, 1_200);
        assertThat(late.status()).isEqualTo(Status.STALE_EPOCH);
        assertThat(late.message()).contains("epoch " + a.epoch());
        assertThat(l.renew("a", a.epoch(), 1_200).status()).isEqualTo(Status.STALE_EPOCH);
        assertThat(l.view().collecting()).containsExactly(b);
    }

    @Test
    void renewalExtendsTheLease() {
        SlotLedger l = ledgerWith(K1, "a", "b");
        Grant g = l.acquire("a", 1, 0, 0).grant();
        Outcome renewed = l.renew("a", g.epoch(), 900);
        assertThat(renewed.grant().deadline()).isEqualTo(1_900);
        l.heartbeat("a", 1_200);
        l.heartbeat("b", 1_200);
        assertThat(l.tick(1_500)).isEmpty();
        assertThat(l.tick(1_900)).extracting(SlotEvent::type).containsExactly(SlotEvent.Type.EXPIRED);
    }

    @Test
    void neverLeavesFewerThanMinHealthyMembersNotCollecting() {
        SlotLedger l = ledgerWith(new SlotPolicy(3, 0, 2, 1_000, 60_000), "a", "b", "c");
        assertThat(l.acquire("a", 1, 0, 0).status()).isEqualTo(Status.GRANTED);
        assertThat(l.acquire("b", 1, 0, 0).status()).as("only c would be left").isEqualTo(Status.QUEUED);
        l.join("d", 1);
        assertThat(l.view().collecting()).extracting(Grant::node).containsExactly("a", "b");
    }

    @Test
    void aFractionOfLiveMembers() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0.5, 0, 1_000, 60_000), "a", "b", "c", "d");
        assertThat(l.acquire("a", 1, 0, 0).status()).isEqualTo(Status.GRANTED);
        assertThat(l.acquire("b", 1, 0, 0).status()).isEqualTo(Status.GRANTED);
        assertThat(l.acquire("c", 1, 0, 0).status()).isEqualTo(Status.QUEUED);
    }

    @Test
    void cancelWithdrawsTheRequestAndGivesBackItsGrant() {
        SlotLedger l = ledgerWith(K1, "a", "b", "c");
        l.acquire("a", 1, 0, 0);
        l.acquire("b", 4, 0, 0);
        assertThat(l.cancel("b", 4, 1).events()).extracting(SlotEvent::type)
            .containsExactly(SlotEvent.Type.CANCELLED);
        assertThat(l.view().queue()).isEmpty();
        l.acquire("c", 2, 0, 2);
        assertThat(l.cancel("a", 1, 3).events()).extracting(SlotEvent::type)
            .containsExactly(SlotEvent.Type.CANCELLED, SlotEvent.Type.GRANTED);
        assertThat(l.view().collecting()).extracting(Grant::node).containsExactly("c");
    }

    /**
     * The interleaving of issue 33 (ClusterIT, "leases that ran out"): n1 queues gc 3 offering a full collection; the
     * JVM collects on its own and the node cancels; an acquire for gc 3 that was on its way arrives after the cancel.
     * Queued again, it was granted to a node that had moved on and held the only slot until its lease ran out.
     */
    @Test
    void aWithdrawnRequestThatArrivesAgainIsNeverQueuedOrGranted() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 5_000, 60_000), "n1", "n2", "n3");
        Grant n2 = l.acquire("n2", 1, 0, 0).grant();
        assertThat(l.acquire("n1", offer(3, 4, 250), 690).status()).isEqualTo(Status.QUEUED);
        assertThat(l.cancel("n1", 3, 3_902).events()).extracting(SlotEvent::type, SlotEvent::gcId)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.CANCELLED, 3L));

        Outcome late = l.acquire("n1", offer(3, 3, 250), 3_906);
        assertThat(late.status()).isEqualTo(Status.REJECTED);
        assertThat(late.message()).contains("GC request 3 of node n1 has ended");
        assertThat(late.events()).isEmpty();
        assertThat(l.view().queue()).isEmpty();
        assertThat(l.release("n2", n2.epoch(), 20, 4_470).events()).extracting(SlotEvent::type)
            .as("nothing left to grant").containsExactly(SlotEvent.Type.RELEASED);
        assertThat(l.view().collecting()).isEmpty();
        assertThat(l.acquire("n1", 4, 10, 4_500).status()).as("the node's next request").isEqualTo(Status.GRANTED);
    }

    @Test
    void aCancelThatOvertakesItsAcquireStillWithdrawsIt() {
        SlotLedger l = ledgerWith(K1, "a", "b");
        assertThat(l.cancel("a", 5, 10).events()).as("nothing to withdraw yet").isEmpty();
        assertThat(l.acquire("a", 5, 0, 11).status()).isEqualTo(Status.REJECTED);
        assertThat(l.view().collecting()).isEmpty();
        assertThat(l.view().queue()).isEmpty();
    }

    @Test
    void aRequestReleasedExpiredOrReplacedIsRefusedAgainAndIdsOnlyGrow() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 1_000, 60_000), "a", "b", "c");
        Grant a = l.acquire("a", 1, 0, 0).grant();
        l.release("a", a.epoch(), 5, 10);
        assertThat(l.acquire("a", 1, 0, 20).status()).as("released").isEqualTo(Status.REJECTED);

        l.acquire("b", 2, 0, 20);
        assertThat(l.tick(1_020)).extracting(SlotEvent::type).containsExactly(SlotEvent.Type.EXPIRED);
        assertThat(l.acquire("b", 2, 0, 1_030).status()).as("expired").isEqualTo(Status.REJECTED);

        Grant c = l.acquire("c", 1, 0, 1_030).grant();
        l.acquire("a", 7, 0, 1_040);
        Outcome older = l.acquire("a", 6, 0, 1_050);
        assertThat(older.status()).isEqualTo(Status.REJECTED);
        assertThat(older.message()).contains("older than the one it has queued (gc 7)");
        l.acquire("a", 8, 0, 1_060); // replaces 7
        assertThat(l.acquire("a", 7, 0, 1_070).status()).as("replaced").isEqualTo(Status.REJECTED);
        assertThat(l.view().queue()).extracting(QueueEntry::gcId).containsExactly(8L);
        l.release("c", c.epoch(), 5, 1_080);
        assertThat(l.grantOf("a").gcId()).isEqualTo(8);
    }

    @Test
    void aJoinCountsTheNodesIdsAnewForAProcessThatRestarted() {
        SlotLedger l = ledgerWith(K1, "a", "b");
        Grant a = l.acquire("a", 9, 0, 0).grant();
        l.release("a", a.epoch(), 5, 10);
        assertThat(l.acquire("a", 1, 0, 20).status()).isEqualTo(Status.REJECTED);
        l.join("a", 30); // a restarted before the ledger lost it: its ids start from 1 again
        assertThat(l.acquire("a", 1, 0, 40).status()).isEqualTo(Status.GRANTED);
    }

    @Test
    void endedRequestsSurviveARestore() {
        SlotLedger l = ledgerWith(K1, "a", "b");
        l.cancel("a", 4, 10);
        SlotLedger restored = SlotLedger.restore(K1, l.state());
        assertThat(restored.state()).isEqualTo(l.state());
        assertThat(l.state().members()).extracting(LedgerState.Member::endedGcId).containsExactly(4L, 0L);
        assertThat(restored.acquire("a", 4, 0, 20).status()).isEqualTo(Status.REJECTED);
        assertThat(restored.acquire("a", 5, 0, 20).status()).isEqualTo(Status.GRANTED);
    }

    @Test
    void aSilentMemberIsLostAndLeavesTheQueueButItsGrantRunsToTheDeadline() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 0, 10_000, 500), "a", "b", "c");
        Grant a = l.acquire("a", 1, 0, 0).grant();
        l.acquire("b", 1, 0, 0);
        l.heartbeat("c", 400);
        List<SlotEvent> events = l.tick(600);
        assertThat(events).extracting(SlotEvent::type, SlotEvent::node).contains(
            org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.LOST, "a"),
            org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.LOST, "b"));
        assertThat(l.view().members()).containsExactly("c");
        assertThat(l.view().queue()).isEmpty();
        assertThat(l.view().collecting()).containsExactly(a);
        assertThat(l.acquire("a", 2, 0, 700).status()).isEqualTo(Status.UNKNOWN_NODE);
    }

    @Test
    void unknownNodesAndBadArgumentsAreAnswersNotExceptions() {
        SlotLedger l = ledgerWith(K1, "a");
        assertThat(l.heartbeat("x", 0).status()).isEqualTo(Status.UNKNOWN_NODE);
        assertThat(l.acquire("x", 1, 0, 0).status()).isEqualTo(Status.UNKNOWN_NODE);
        assertThat(l.release("x", 1, 0, 0).status()).isEqualTo(Status.UNKNOWN_NODE);
        assertThat(l.renew("x", 1, 0).status()).isEqualTo(Status.UNKNOWN_NODE);
        assertThat(l.cancel("x", 1, 0).status()).isEqualTo(Status.UNKNOWN_NODE);
        assertThat(l.cancel("a", 1, 0).status()).as("a member, nothing to cancel").isEqualTo(Status.OK);
        assertThat(l.leave("x", 0).status()).isEqualTo(Status.UNKNOWN_NODE);
        assertThat(l.acquire("a", 0, 0, 0).status()).isEqualTo(Status.REJECTED);
        assertThat(l.acquire("a", 1, -1, 0).status()).isEqualTo(Status.REJECTED);
        SlotLedger late = new SlotLedger(SlotPolicy.defaults());
        late.join("a", Long.MAX_VALUE - 5);
        late.join("b", Long.MAX_VALUE - 5);
        Outcome far = late.acquire("a", 1, Long.MAX_VALUE, Long.MAX_VALUE - 5);
        assertThat(far.status()).as("no overflow").isEqualTo(Status.GRANTED);
        assertThat(far.grant().deadline()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void timeNeverGoesBackwards() {
        SlotLedger l = ledgerWith(new SlotPolicy(1, 0, 1, 1_000, 60_000), "a", "b");
        Grant g = l.acquire("a", 1, 0, 5_000).grant();
        assertThat(l.tick(0)).isEmpty();
        assertThat(l.renew("a", g.epoch(), 0).grant().deadline()).isEqualTo(6_000);
    }

    @Test
    void aLedgerTakingOverGrantsNothingUntilTheOldLeasesRanOutAndContinuesTheEpochs() {
        // the lost ledger's leases end by 2000, its epochs by 41
        SlotLedger l = new SlotLedger(new SlotPolicy(1, 0, 1, 1_000, 60_000), 41, 2_000);
        l.join("a", 0);
        l.join("b", 0);
        Outcome early = l.acquire("a", 1, 0, 100);
        assertThat(early.status()).as("queued while old leases may run").isEqualTo(Status.QUEUED);
        assertThat(l.tick(1_999)).extracting(SlotEvent::type).doesNotContain(SlotEvent.Type.GRANTED);
        List<SlotEvent> atDeadline = l.tick(2_000);
        assertThat(atDeadline).extracting(SlotEvent::type, SlotEvent::node, SlotEvent::epoch)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(SlotEvent.Type.GRANTED, "a", 42L));
        assertThat(l.release("a", 41, 0, 2_001).status()).as("an old epoch stays stale")
            .isEqualTo(Status.STALE_EPOCH);
        assertThat(l.view().grantsFrom()).isEqualTo(2_000);
        assertThat(new SlotLedger(K1).view().grantsFrom()).isEqualTo(Long.MIN_VALUE);
    }
}
