package io.bladegc.benchmarks.suite.raftkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftKvRequestsTest {
    private static final long START = 1_000_000L;

    /**
     * Ten requests due every 100 ms from the window's start, answered in 2 ms, 3 ms, ... but: 1 failed, 2 and 3 timed
     * out (3 after other outcomes: the last one counts), 4 answered in 30 ms after an attempt timed out (twice).
     */
    private static RaftKvRequests tenRequests() {
        RaftKvRequests r = new RaftKvRequests(START, 10);
        for (int i = 0; i < 10; i++) {
            assertThat(r.add(i * 100_000L)).isEqualTo(i);
        }
        for (int i = 0; i < 10; i++) {
            r.answered(i, 2_000 + i * 1_000L);
        }
        r.failed(1);
        r.timedOut(2);
        r.answered(3, 0);
        r.failed(3);
        r.timedOut(3);
        r.answered(4, 30_000);
        r.attemptTimedOut(4, "n2");
        r.attemptTimedOut(4, "n2");
        return r;
    }

    @Test
    void theWholeWindowCountsEveryOutcome() {
        RaftKvRequests r = tenRequests();
        assertThat(r.count()).isEqualTo(10);
        assertThat(r.startEpochMillis()).isEqualTo(START);
        assertThat(r.all()).isEqualTo(new RaftKvRequests.Stretch(10, 30_000, 1, 2, 1));
    }

    @Test
    void aStretchHoldsTheRequestsDueInItBothEndsIncluded() {
        RaftKvRequests r = tenRequests();
        // due at 500, 600, 700 ms: answered in 7, 8, 9 ms
        assertThat(r.between(START + 500, START + 700)).isEqualTo(new RaftKvRequests.Stretch(3, 9_000, 0, 0, 0));
        assertThat(r.between(START + 50, START + 450)).isEqualTo(new RaftKvRequests.Stretch(4, 30_000, 1, 2, 1));
        assertThat(r.between(START + 2_000, START + 3_000)).isEqualTo(new RaftKvRequests.Stretch(0, -1, 0, 0, 0));
        assertThat(r.between(START - 1_000, START)).isEqualTo(new RaftKvRequests.Stretch(1, 2_000, 0, 0, 0));
    }

    @Test
    void anUnansweredRequestCountsAsTimedOut() {
        RaftKvRequests r = new RaftKvRequests(START, 2);
        r.add(0);
        r.add(1_000);
        r.answered(1, -5);
        assertThat(r.all()).isEqualTo(new RaftKvRequests.Stretch(2, 0, 0, 1, 0));
    }

    @Test
    void aFullWindowTakesNoMore() {
        RaftKvRequests r = new RaftKvRequests(START, 1);
        r.add(0);
        assertThatThrownBy(() -> r.add(1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void everyRequestIsWrittenWithItsKindPeerAndResends(@TempDir Path dir) throws Exception {
        RaftKvRequests r = new RaftKvRequests(START, 3);
        r.add(0);
        r.add(10_000);
        r.add(20_000);
        r.answered(0, 1_500);
        r.answeredBy(0, "n1");
        r.put(1);
        r.resentForLeaderChange(1);
        r.resentForLeaderChange(1);
        r.attemptTimedOut(1, "n1");
        r.answered(1, 512_250);
        r.answeredBy(1, "n2");
        r.failed(2);
        Path csv = dir.resolve("requests.csv");
        r.writeCsv(csv);
        assertThat(Files.readAllLines(csv)).containsExactly(
            "due_ms,kind,latency_ms,peer,leader_resends,attempt_timeout,timed_out_at",
            "0.000,get,1.500,n1,0,0,",
            "10.000,put,512.250,n2,2,1,n1",
            "20.000,get,,,0,0,");
    }
}
