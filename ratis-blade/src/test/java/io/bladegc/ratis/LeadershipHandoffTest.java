package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.QueueEntry;
import io.bladegc.api.slot.SlotView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

/** The order in which a leader asks its followers to take over ({@link LeadershipHandoff#successors}). */
class LeadershipHandoffTest {
    private static final RaftPeerId N1 = RaftPeerId.valueOf("n1");
    private static final List<RaftPeer> FIVE = List.of("n1", "n2", "n3", "n4", "n5").stream()
        .map(id -> RaftPeer.newBuilder().setId(id).build()).toList();

    private static SlotGroupView view(List<String> members, List<Grant> collecting, Map<String, Long> lastCollected) {
        return view(members, collecting, lastCollected, Map.of());
    }

    private static SlotGroupView view(List<String> members, List<Grant> collecting, Map<String, Long> lastCollected,
                                      Map<String, Long> dueAt) {
        return new SlotGroupView(new SlotView(members, collecting, List.of(), 7, 0,
            QuorumPolicy.of(5, Duration.ofSeconds(10), Duration.ofSeconds(3))), lastCollected, 40, 0, dueAt);
    }

    private static List<String> names(List<RaftPeerId> ids) {
        return ids.stream().map(RaftPeerId::toString).toList();
    }

    @Test
    void theFollowerThatCollectedMostRecentlyComesFirstAndOnesThatNeverDidComeLast() {
        SlotGroupView v = view(List.of("n1", "n2", "n3", "n4", "n5"), List.of(),
            Map.of("n2", 100L, "n3", 300L, "n5", 200L));
        assertThat(names(LeadershipHandoff.successors(N1, FIVE, v, Map.of(), 50, Set.of())))
            .containsExactly("n3", "n5", "n2", "n4");
    }

    @Test
    void theFollowerDueNextIsNeverTheSuccessorWhenAnotherIsNot() {
        // n3 collected most recently, but its JVM is due first; n4 said nothing of its next collection
        SlotGroupView v = view(List.of("n1", "n2", "n3", "n4", "n5"), List.of(),
            Map.of("n2", 100L, "n3", 300L, "n5", 200L), Map.of("n2", 9_000L, "n3", 1_200L, "n5", 5_000L));
        assertThat(names(LeadershipHandoff.successors(N1, FIVE, v, Map.of(), 50, Set.of())))
            .containsExactly("n4", "n2", "n5", "n3");
    }

    @Test
    void aLaggingFollowerComesAfterEveryCaughtUpOneHoweverRecentlyItCollected() {
        SlotGroupView v = view(List.of("n1", "n2", "n3", "n4", "n5"), List.of(),
            Map.of("n2", 100L, "n3", 300L, "n5", 200L));
        Map<RaftPeerId, Long> match = Map.of(RaftPeerId.valueOf("n2"), 50L, RaftPeerId.valueOf("n3"), 42L,
            RaftPeerId.valueOf("n4"), 49L, RaftPeerId.valueOf("n5"), 51L); // commit index 50: n3 and n4 lag
        assertThat(names(LeadershipHandoff.successors(N1, FIVE, v, match, 50, Set.of())))
            .containsExactly("n5", "n2", "n3", "n4");
    }

    @Test
    void peersThatAreCollectingOrNotLiveMembersAreNotAsked() {
        Grant n2 = new Grant("n2", 9, 7, 1_000, 11_000);
        SlotGroupView v = view(List.of("n1", "n2", "n3", "n5"), List.of(n2), Map.of("n2", 500L, "n4", 400L));
        assertThat(names(LeadershipHandoff.successors(N1, FIVE, v, Map.of(), 50, Set.of())))
            .containsExactly("n3", "n5");
    }

    @Test
    void aPeerQueuedForItsOwnCollectionComesAfterEveryOtherSoThatLeadershipDoesNotPingPong() {
        SlotGroupView v = new SlotGroupView(new SlotView(List.of("n1", "n2", "n3", "n4", "n5"), List.of(),
            List.of(new QueueEntry("n3", Ask.young(4, 1_000), 1_050)), 7, 0,
            QuorumPolicy.of(5, Duration.ofSeconds(10), Duration.ofSeconds(3))), Map.of("n3", 300L, "n2", 100L), 40, 0,
            Map.of());
        Map<RaftPeerId, Long> match = Map.of(RaftPeerId.valueOf("n2"), 42L); // commit index 50: n2 lags
        assertThat(names(LeadershipHandoff.successors(N1, FIVE, v, match, 50, Set.of())))
            .as("queued n3 last, even behind lagging n2").containsExactly("n4", "n5", "n2", "n3");
    }

    @Test
    void aFollowerTheLeaderHasNotHeardFromIsNotAskedHoweverRecentlyItCollected() {
        SlotGroupView v = view(List.of("n1", "n2", "n3", "n4", "n5"), List.of(),
            Map.of("n2", 100L, "n3", 300L, "n5", 200L));
        assertThat(names(LeadershipHandoff.successors(N1, FIVE, v, Map.of(), 50,
            Set.of(RaftPeerId.valueOf("n3"), RaftPeerId.valueOf("n4")))))
            .as("n3, killed, still a member of the slot ledger").containsExactly("n5", "n2");
    }
}
