package io.bladegc.benchmarks.suite.raftkv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RaftKvHandoffsTest {
    private static final long START = 1_000_000L;

    /** A request due every 100 ms for 10 s, each answered in 2 ms. */
    static RaftKvRequests steady() {
        RaftKvRequests r = new RaftKvRequests(START, 100);
        for (int i = 0; i < 100; i++) {
            r.answered(r.add(i * 100_000L), 2_000);
        }
        return r;
    }

    private static RaftKvLeadership.Handoff handoff(long startAfterMillis, double durationMillis) {
        return new RaftKvLeadership.Handoff("n1", "n2", START + startAfterMillis, durationMillis, 40);
    }

    @Test
    void aHandOffsRequestsAreThoseDueFromItsStartToASecondAfterItsEnd() {
        RaftKvRequests r = steady();
        r.answered(20, 150_000); // due at 2.0 s, before the hand-off: not its
        r.answered(25, 180_000); // due at 2.5 s, while it runs
        r.answered(37, 5_000); // due at 3.7 s, 1 s after its end
        r.answered(38, 900_000); // due at 3.8 s: no longer its
        RaftKvHandoffs.Row row = RaftKvHandoffs.rows(List.of(handoff(2_050, 650)), r).get(0);
        assertThat(row.stretch()).isEqualTo(new RaftKvRequests.Stretch(17, 180_000, 0, 0, 0)); // 2.1 .. 3.7 s
        assertThat(row.judged()).isTrue();
        assertThat(row.met()).isTrue();
        assertThat(row.verdict()).isEqualTo("met");
    }

    @Test
    void theGoalIsNoTimeoutNoFailureAndAtMostTwiceTheDuration() {
        RaftKvRequests r = steady();
        r.answered(11, 250_000); // 2.5 x a 100 ms hand-off at 1.0 s
        r.answered(51, 120_000);
        r.attemptTimedOut(51, "n1"); // the hand-off at 5.0 s: 120 ms, but an attempt timed out
        r.failed(82);
        r.timedOut(83); // the hand-off at 8.0 s
        List<RaftKvHandoffs.Row> rows = RaftKvHandoffs.rows(List.of(handoff(1_000, 100), handoff(5_000, 100),
            handoff(8_000, 100)), r);
        assertThat(rows).extracting(RaftKvHandoffs.Row::verdict).containsExactly("not met: 2.5 x its duration",
            "not met: timeouts", "not met: timeouts, failed calls");
        assertThat(rows).noneMatch(RaftKvHandoffs.Row::met);
    }

    @Test
    void aHandOffThatDidNotCompleteOrHadNoRequestIsNotJudged() {
        RaftKvRequests r = steady();
        RaftKvLeadership.Handoff notHanded = new RaftKvLeadership.Handoff("n1", null, START + 1_000, 3_000, -1);
        List<RaftKvHandoffs.Row> rows = RaftKvHandoffs.rows(List.of(notHanded, handoff(20_000, 100)), r);
        assertThat(rows).extracting(RaftKvHandoffs.Row::verdict).containsExactly("-", "-");
        assertThat(rows).noneMatch(RaftKvHandoffs.Row::judged);
        assertThat(rows.get(1).stretch().requests()).isZero();
    }

    @Test
    void oneMarkdownRowPerHandOff() {
        RaftKvLoad.Result load = RaftKvTableTest.load(steady());
        RaftKvRep rep = new RaftKvRep("blade-parallel", 2, load, new RaftKvLeadership.Changes(
            List.of(handoff(2_120, 296.5)), List.of(), List.of()), 1, List.of(1, 2, 3), 10, 20, null, null);
        String md = RaftKvHandoffs.markdown(List.of(rep, RaftKvRep.failed("g1", 1, "boom")));
        assertThat(md).startsWith("| hand-off: arm | rep |");
        // requests due from 2.12 s to 3.417 s: 2.2 .. 3.4 s
        assertThat(md).contains("| blade-parallel | 2 | 2.1 | n1 -> n2 | 296.5 | 40 | 13 | 2.0 | 0 / 0 / 0 | met |");
        assertThat(RaftKvHandoffs.markdown(List.of())).isEqualTo("No leadership hand-off started in any measured"
            + " window.\n");
    }
}
