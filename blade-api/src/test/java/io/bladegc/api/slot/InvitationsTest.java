package io.bladegc.api.slot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InvitationsTest {
    private final Invitations invitations = new Invitations();

    /** a ran one full collection, granted at {@code from} and released 500 ms later. */
    private void aHeldAFullCollectionFor500Millis(long from) {
        invitations.event(new SlotEvent(SlotEvent.Type.GRANTED, "a", 1, 1, from, SlotLedger.FULL_DETAIL));
        invitations.event(new SlotEvent(SlotEvent.Type.RELEASED, "a", 1, 1, from + 500, ""));
    }

    @Test
    void aMemberDueDuringAnothersNearFullCollectionIsInvitedAndOthersAreNot() {
        aHeldAFullCollectionFor500Millis(0);
        long now = 10_000;
        invitations.heartbeat("a", 800, 1_000, now); // a's next full collection starts in 1 s
        invitations.heartbeat("b", 1_400, -1, now); // due during it
        invitations.heartbeat("c", 1_800, -1, now); // after it, however much faster c fills while a is out: 1,000 + 750
        invitations.heartbeat("d", 600, -1, now); // well before it: collects as ever
        assertThat(invitations.invitedBy("b", now)).isEqualTo("a");
        assertThat(invitations.invitedBy("c", now)).isNull();
        assertThat(invitations.invitedBy("d", now)).isNull();
        assertThat(invitations.invitedBy("a", now)).as("not by its own full collection").isNull();
    }

    @Test
    void theStretchCountsTheShareTheOthersCarryWhileOneIsOut() {
        aHeldAFullCollectionFor500Millis(0);
        long now = 10_000;
        invitations.heartbeat("a", 800, 1_000, now);
        invitations.heartbeat("b", 1_700, -1, now); // after the 500 ms pause, within 500 x 3 / 2
        invitations.heartbeat("c", 5_000, -1, now);
        assertThat(invitations.invitedBy("b", now)).isEqualTo("a");
        invitations.event(new SlotEvent(SlotEvent.Type.LEFT, "c", 0, 0, now, ""));
        assertThat(invitations.invitedBy("b", now)).as("two members: b carries all of a's share, 500 x 2 / 1")
            .isEqualTo("a");
        invitations.heartbeat("b", 2_100, -1, now);
        assertThat(invitations.invitedBy("b", now)).isNull();
    }

    @Test
    void nobodyIsInvitedByAFullCollectionFarOffRunningOrOfUnknownHold() {
        long now = 10_000;
        invitations.heartbeat("a", 800, 1_000, now);
        invitations.heartbeat("b", 1_400, -1, now);
        assertThat(invitations.invitedBy("b", now)).as("a's full collection's hold is not known yet").isNull();
        invitations.fullAsked("a", 450); // a offered one, expecting a 450 ms pause
        assertThat(invitations.invitedBy("b", now)).isEqualTo("a");
        invitations.heartbeat("a", 800, Invitations.HORIZON_MILLIS + 1, now);
        invitations.heartbeat("b", Invitations.HORIZON_MILLIS + 300, -1, now);
        assertThat(invitations.invitedBy("b", now)).as("beyond the horizon").isNull();
        invitations.heartbeat("a", 800, 1_000, now);
        invitations.heartbeat("b", 1_400, -1, now);
        invitations.event(new SlotEvent(SlotEvent.Type.GRANTED, "a", 2, 2, now, SlotLedger.FULL_DETAIL));
        assertThat(invitations.invitedBy("b", now)).as("a's full collection runs: too late to go before it").isNull();
    }

    @Test
    void aMemberThatCollectedIsNoLongerDueUntilItSaysSoAgain() {
        aHeldAFullCollectionFor500Millis(0);
        long now = 10_000;
        invitations.heartbeat("a", 800, 1_000, now);
        invitations.heartbeat("b", 1_400, -1, now);
        invitations.event(new SlotEvent(SlotEvent.Type.GRANTED, "b", 5, 3, now + 10, ""));
        invitations.event(new SlotEvent(SlotEvent.Type.RELEASED, "b", 5, 3, now + 120, ""));
        assertThat(invitations.invitedBy("b", now + 130)).isNull();
        invitations.heartbeat("b", 3_000, -1, now + 150); // its next collection: a whole eden away
        assertThat(invitations.invitedBy("b", now + 150)).isNull();
    }

    /** {@code node} ran one young collection, granted at {@code from} and released 150 ms later. */
    private void heldAYoungCollectionFor150Millis(String node, long from) {
        invitations.event(new SlotEvent(SlotEvent.Type.GRANTED, node, 7, 1, from, ""));
        invitations.event(new SlotEvent(SlotEvent.Type.RELEASED, node, 7, 1, from + 150, ""));
    }

    @Test
    void ofTwoYoungCollectionsTooCloseTheEarlierIsInvitedToGoFirst() {
        heldAYoungCollectionFor150Millis("a", 0);
        heldAYoungCollectionFor150Millis("b", 0);
        heldAYoungCollectionFor150Millis("c", 0);
        long now = 10_000;
        invitations.heartbeat("a", 900, -1, now);
        invitations.heartbeat("b", 1_000, -1, now); // comes due 100 ms after a: during a's 150 ms hold
        invitations.heartbeat("c", 1_400, -1, now); // 400 ms after b: clear of it, however much faster it fills
        assertThat(invitations.invitedBy("a", now)).isEqualTo("b");
        assertThat(invitations.invitedBy("b", now)).as("the later one collects when it comes due").isNull();
        assertThat(invitations.invitedBy("c", now)).isNull();
        invitations.heartbeat("b", 1_100, -1, now); // 200 ms after a: within 150 x 3 / 2, b fills faster meanwhile
        assertThat(invitations.invitedBy("a", now)).isEqualTo("b");
        invitations.heartbeat("b", 1_130, -1, now);
        assertThat(invitations.invitedBy("a", now)).isNull();
    }

    @Test
    void twoDueAtOnceInviteOnlyOneAndNobodyWithoutAKnownHoldOrBeyondTheHorizon() {
        long now = 10_000;
        invitations.heartbeat("a", 900, -1, now);
        invitations.heartbeat("b", 900, -1, now);
        assertThat(invitations.invitedBy("a", now)).as("a's young hold is not known yet").isNull();
        heldAYoungCollectionFor150Millis("a", 0);
        heldAYoungCollectionFor150Millis("b", 0);
        invitations.heartbeat("a", 900, -1, now);
        invitations.heartbeat("b", 900, -1, now);
        assertThat(invitations.invitedBy("a", now)).isEqualTo("b");
        assertThat(invitations.invitedBy("b", now)).as("one of two due together goes first, by name").isNull();
        invitations.heartbeat("a", Invitations.HORIZON_MILLIS + 1, -1, now);
        invitations.heartbeat("b", Invitations.HORIZON_MILLIS + 50, -1, now);
        assertThat(invitations.invitedBy("a", now)).as("beyond the horizon").isNull();
        invitations.heartbeat("a", 900, -1, now);
        invitations.heartbeat("b", 950, -1, now);
        invitations.event(new SlotEvent(SlotEvent.Type.GRANTED, "b", 8, 2, now, ""));
        assertThat(invitations.invitedBy("a", now)).as("b collects already").isNull();
    }
}
