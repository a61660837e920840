package io.bladegc.benchmarks.suite.raftkv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class RaftKvLeadershipTest {
    private static final ZoneId ZONE = ZoneId.of("UTC");
    private static final long REFERENCE = ZonedDateTime.of(2026, 11, 24, 21, 14, 50, 0, ZONE).toInstant()
        .toEpochMilli();
    private static final String G = "6B7673746F72";
    private static final String RATIS = "org.apache.ratis.server.impl.";

    /** n1 hands the group to n2 at 21:14:54.205 (and the slot group, which is not counted), then collects. */
    private static final String N1 = String.join("\n",
        "21:14:45.183 [n1@group-" + G + "-LeaderElection1] INFO " + RATIS + "LeaderElection - n1@group-" + G
            + "-LeaderElection1 ELECTION round 2: submit vote requests at term 1 for conf: {index: -1}",
        "21:14:54.205 [blade-raft-gc] INFO " + RATIS + "TransferLeadership - n1@group-" + G
            + ": start transferring leadership to n2",
        "21:14:54.206 [blade-raft-gc] INFO " + RATIS + "TransferLeadership - n1@group-" + G
            + ": sendStartLeaderElection to follower n2, lastEntry=(t:1, i:0)",
        "21:14:54.422 [blade-raft-gc] INFO " + RATIS + "TransferLeadership - n1@group-CBC3B46F6ACD: start"
            + " transferring leadership to n2",
        "21:14:54.694 INFO Blade raft n1 GC #1 YOUNG granted (epoch 2): T_handoff 397.4 ms (handed " + G + " to n2 in"
            + " 296.5 ms; handed CBC3B46F6ACD to n2 in 100.9 ms), T_schedule 511.9 ms, T_trailers 0.0 ms, T_gc 26.1 ms"
            + " (COLLECTED), T_notify 3.1 ms; released",
        "21:15:07.333 INFO Blade raft n1 GC #4 YOUNG granted (epoch 9): T_schedule 49.6 ms, T_trailers 0.0 ms, T_gc"
            + " 25.5 ms (COLLECTED), T_notify 2.0 ms; released",
        "21:15:09.000 [blade-raft-gc] INFO " + RATIS + "TransferLeadership - n1@group-" + G
            + ": start transferring leadership to n3",
        "21:15:12.010 WARNING Blade raft n1 GC #5 YOUNG not collecting: T_handoff 3001.2 ms (leadership of group-" + G
            + " not handed off within 3000 ms; not collecting while leader), T_schedule 3001.3 ms, T_trailers -, T_gc -,"
            + " T_notify -; the JVM collects on its own");

    /** n2 wins the hand-off's election at term 2; later an election of its own at term 3, outside every hand-off. */
    private static final String N2 = String.join("\n",
        "21:14:54.216 [n2@group-" + G + "-LeaderElection4] INFO " + RATIS + "LeaderElection - n2@group-" + G
            + "-LeaderElection4 PRE_VOTE round 0: submit vote requests at term 1 for conf: {index: 0}",
        "21:14:54.217 [n2@group-" + G + "-LeaderElection4] INFO " + RATIS + "LeaderElection - n2@group-" + G
            + "-LeaderElection4 ELECTION round 0: submit vote requests at term 2 for conf: {index: 0}",
        "21:14:54.246 [n2@group-" + G + "-LeaderElection4] INFO " + RATIS + "LeaderElection - n2@group-" + G
            + "-LeaderElection4: ELECTION PASSED received 1 response(s) and 0 exception(s):",
        "21:14:54.247 [n2@group-" + G + "-LeaderElection4] INFO " + RATIS + "LeaderElection - n2@group-" + G
            + "-LeaderElection4 ELECTION round 0: result PASSED",
        "21:15:01.500 [n2@group-" + G + "-LeaderElection5] INFO " + RATIS + "LeaderElection - n2@group-" + G
            + "-LeaderElection5 ELECTION round 0: submit vote requests at term 3 for conf: {index: 9}",
        "21:15:01.530 [n2@group-" + G + "-LeaderElection5] INFO " + RATIS + "LeaderElection - n2@group-" + G
            + "-LeaderElection5 ELECTION round 0: result PASSED");

    private static long at(String time) {
        return RaftKvLeadership.epochMillis(time, REFERENCE, ZONE);
    }

    @Test
    void aHandOffStartsAtRatissTransferLineAndLastsWhatBladeSays() {
        RaftKvLeadership.Changes c = RaftKvLeadership.parse(List.of(N1, N2), G, REFERENCE, ZONE);
        assertThat(c.handoffs()).hasSize(2);
        RaftKvLeadership.Handoff first = c.handoffs().get(0);
        assertThat(first.from()).isEqualTo("n1");
        assertThat(first.to()).isEqualTo("n2");
        assertThat(first.completed()).isTrue();
        assertThat(first.startEpochMillis()).isEqualTo(at("21:14:54.205"));
        assertThat(first.durationMillis()).isEqualTo(296.5);
        assertThat(first.endEpochMillis()).isEqualTo(at("21:14:54.205") + 297);
        assertThat(first.electedMillis()).isEqualTo(42); // n2's election passed at .247
    }

    @Test
    void aHandOffThatDidNotCompleteLastsItsTimeout() {
        RaftKvLeadership.Handoff failed = RaftKvLeadership.parse(List.of(N1, N2), G, REFERENCE, ZONE).handoffs()
            .get(1);
        assertThat(failed.completed()).isFalse();
        assertThat(failed.to()).isNull();
        assertThat(failed.startEpochMillis()).isEqualTo(at("21:15:09.000"));
        assertThat(failed.durationMillis()).isEqualTo(3000);
        assertThat(failed.electedMillis()).isEqualTo(-1);
    }

    @Test
    void withoutATransferLineAHandOffStartsAtBladesLine() {
        String out = "12:00:00.500 WARNING Blade raft n3 GC #2 YOUNG not collecting: T_handoff 3000.4 ms (leadership of"
            + " group-" + G + " not handed off within 3000 ms; not collecting while leader), T_schedule 3000.5 ms,"
            + " T_trailers -, T_gc -, T_notify -; the JVM collects on its own";
        long reference = ZonedDateTime.of(2026, 11, 24, 12, 0, 0, 0, ZONE).toInstant().toEpochMilli();
        assertThat(RaftKvLeadership.parse(List.of(out), G, reference, ZONE).handoffs()).singleElement()
            .satisfies(h -> assertThat(h.startEpochMillis()).isEqualTo(reference + 500));
    }

    @Test
    void electionsAreOnePerTermAndThoseDuringAHandOffAreItsOwn() {
        RaftKvLeadership.Changes c = RaftKvLeadership.parse(List.of(N2, N1), G, REFERENCE, ZONE);
        assertThat(c.elections()).extracting(RaftKvLeadership.Election::term).containsExactly(1L, 2L, 3L);
        assertThat(c.elections().get(1).candidate()).isEqualTo("n2");
        assertThat(c.notFromHandoffs()).extracting(RaftKvLeadership.Election::term).containsExactly(1L, 3L);
    }

    @Test
    void eachCollectionBladeDroveIsCountedByWhatThePeerDidFirstWithItsPause() {
        String inPlace = "21:15:20.684 FINE Blade raft n2 GC #13 YOUNG granted (epoch 25): T_schedule 10.2 ms, in place"
            + " (YOUNG pause p75 aged 20.0 ms (longest aged 35.4 ms) against hand-off p75 536.9 ms), T_trailers 0.0 ms,"
            + " T_gc 47.7 ms (COLLECTED), T_notify 4.6 ms; released";
        RaftKvLeadership.Changes c = RaftKvLeadership.parse(List.of(N1, N2 + "\n" + inPlace), G, REFERENCE, ZONE);
        assertThat(c.collections()).extracting(RaftKvLeadership.Collection::peer, RaftKvLeadership.Collection::role,
                RaftKvLeadership.Collection::pauseMillis)
            .as("n1's third collection did not happen (T_gc -): not counted").containsExactly(
                Tuple.tuple("n1", RaftKvLeadership.Role.LEADER_HANDED_OFF, 26.1),
                Tuple.tuple("n1", RaftKvLeadership.Role.FOLLOWER, 25.5),
                Tuple.tuple("n2", RaftKvLeadership.Role.LEADER_IN_PLACE, 47.7));
        assertThat(c.collections().get(2).epochMillis()).isEqualTo(at("21:15:20.684"));
        assertThat(c.within(at("21:15:00.000"), at("21:15:10.000")).collections()).singleElement()
            .satisfies(one -> assertThat(one.role()).isEqualTo(RaftKvLeadership.Role.FOLLOWER));
    }

    @Test
    void withinKeepsWhatStartedInTheWindow() {
        RaftKvLeadership.Changes c = RaftKvLeadership.parse(List.of(N1, N2), G, REFERENCE, ZONE)
            .within(at("21:14:50.000"), at("21:15:05.000"));
        assertThat(c.handoffs()).hasSize(1);
        assertThat(c.elections()).extracting(RaftKvLeadership.Election::term).containsExactly(2L, 3L);
        assertThat(c.notFromHandoffs()).extracting(RaftKvLeadership.Election::term).containsExactly(3L);
    }

    @Test
    void otherGroupsAreNotCounted() {
        assertThat(RaftKvLeadership.parse(List.of(N1, N2), "CBC3B46F6ACD", REFERENCE, ZONE).handoffs())
            .singleElement().satisfies(h -> assertThat(h.durationMillis()).isEqualTo(100.9));
    }

    @Test
    void aTimeOfDayIsTheNearestToTheReference() {
        long justBeforeMidnight = ZonedDateTime.of(2026, 11, 24, 23, 59, 59, 0, ZONE).toInstant().toEpochMilli();
        assertThat(RaftKvLeadership.epochMillis("00:00:01.000", justBeforeMidnight, ZONE))
            .isEqualTo(justBeforeMidnight + 2_000);
        long justAfterMidnight = justBeforeMidnight + 2_000;
        assertThat(RaftKvLeadership.epochMillis("23:59:59.000", justAfterMidnight, ZONE))
            .isEqualTo(justBeforeMidnight);
        assertThat(RaftKvLeadership.epochMillis("21:14:50.250", REFERENCE, ZONE)).isEqualTo(REFERENCE + 250);
    }
}
