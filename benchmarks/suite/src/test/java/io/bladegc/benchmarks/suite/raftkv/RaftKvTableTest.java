package io.bladegc.benchmarks.suite.raftkv;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.harness.WakeupJitter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RaftKvTableTest {
    /**
     * @return a window's result whose histogram holds the answered requests of {@code requests} (1 ms when none
     *     is answered yet), 20 s long
     */
    static RaftKvLoad.Result load(RaftKvRequests requests) {
        Histogram h = new Histogram(RaftKvLoad.MAX_LATENCY_MICROS, 3);
        h.recordValueWithCount(1_000, requests.count());
        return new RaftKvLoad.Result(h, requests, 3, 1, Map.of(), 2_500, 20);
    }

    /** 10,000 requests answered in 1 ms but 10 (0.1 %) in {@code tailMicros}; 2 failed, 1 timed out. */
    static RaftKvRep rep(String arm, int rep, long tailMicros, int elections, RaftKvRep.Usage usage) {
        RaftKvRequests requests = new RaftKvRequests(0, 10_000);
        Histogram h = new Histogram(RaftKvLoad.MAX_LATENCY_MICROS, 3);
        for (int i = 0; i < 10_000; i++) {
            long micros = i % 1_000 == 999 ? tailMicros : 1_000;
            requests.answered(requests.add(i * 2_000L), micros);
            h.recordValue(micros);
        }
        requests.failed(5);
        requests.failed(6);
        requests.timedOut(7);
        List<RaftKvLeadership.Election> e = java.util.stream.LongStream.range(0, elections)
            .mapToObj(t -> new RaftKvLeadership.Election("n1", t + 2, 5_000 + t)).toList();
        Map<String, Long> causes = Map.of("LeaderSteppingDownException", 1L, "StateMachineException", 1L);
        return new RaftKvRep(arm, rep, new RaftKvLoad.Result(h, requests, 3, 1, causes, 2_500, 20),
            new RaftKvLeadership.Changes(List.of(), e, List.of()), elections, List.of(4, 5, 6), 12.5, 30.25, usage,
            null);
    }

    static RaftKvRep.Usage usage(long lateMicros) {
        Histogram late = new Histogram(3);
        late.recordValueWithCount(50, 998);
        late.recordValue(lateMicros);
        return new RaftKvRep.Usage(1.5, 0.1, 1.0, 0.25, new WakeupJitter(late));
    }

    @Test
    void oneColumnPerArmOverAllRepetitions() {
        List<RaftKvRep> reps = List.of(rep("g1", 1, 80_000, 0, usage(4_000)), rep("g1", 2, 60_000, 1, usage(2_000)),
            rep("blade-parallel", 1, 8_000, 0, null), RaftKvRep.failed("epsilon", 1, "boom"));
        String md = RaftKvTable.markdown(List.of("g1", "blade-parallel", "epsilon"), reps);
        assertThat(md).startsWith("| | g1 | blade-parallel | epsilon |\n|---|---:|---:|---:|\n");
        assertThat(md).contains("| p50 (ms) | 1.00 | 1.00 | - |");
        assertThat(md).contains("| p99.99 (ms) | 80.06 | 8.00 | - |");
        assertThat(md).contains("| p99.99 per repetition (ms) | 80.06, 60.03 | 8.00 | - |");
        assertThat(md).contains("| repetitions (failed) | 2 (0) | 1 (0) | 0 (1) |");
        assertThat(md).contains("| requests due in the windows | 20000 | 10000 | - |");
        assertThat(md).contains("| failed client calls | 4 | 2 | - |");
        assertThat(md).contains("| ... by cause | LeaderSteppingDownException 2, StateMachineException 2 |"
            + " LeaderSteppingDownException 1, StateMachineException 1 | - |");
        assertThat(md).contains("| timed out (no answer by the deadline) | 2 | 1 | - |");
        assertThat(md).contains("| attempts sent again: leadership moving / other | 6 / 2 | 3 / 1 | - |");
        assertThat(md).contains("| elections outside hand-offs (peers' output) | 1 | 0 | - |");
        assertThat(md).contains("| terms advanced (GroupManagementApi) | 1 | 0 | ? |");
        assertThat(md).contains("| collections per peer (n1/n2/n3), per repetition | 4/5/6, 4/5/6 | 4/5/6 | - |");
        assertThat(md).contains("| cores busy in the window (mean): machine (steal) / peers / load generator |"
            + " 1.50 (0.10) / 1.00 / 0.25 | - | - |");
        assertThat(md).contains("| 1 ms sleeps late during the window, p99.9 / max (ms) | 2.00 / 4.00 | - | - |");
    }

    @Test
    void bladesCollectionsByWhatThePeerWasAndWhatEachHandOffCostItsClients() {
        RaftKvRep base = rep("blade-g1", 1, 8_000, 0, null); // request i due at i x 2 ms; 999, 1999, ... take 8 ms
        List<RaftKvLeadership.Collection> collections = List.of(
            new RaftKvLeadership.Collection("n1", RaftKvLeadership.Role.FOLLOWER, 100, 20),
            new RaftKvLeadership.Collection("n2", RaftKvLeadership.Role.FOLLOWER, 200, 40),
            new RaftKvLeadership.Collection("n3", RaftKvLeadership.Role.FOLLOWER, 300, 30),
            new RaftKvLeadership.Collection("n1", RaftKvLeadership.Role.LEADER_IN_PLACE, 400, 25),
            new RaftKvLeadership.Collection("n2", RaftKvLeadership.Role.LEADER_HANDED_OFF, 2_000, 50));
        List<RaftKvLeadership.Handoff> handoffs = List.of(
            new RaftKvLeadership.Handoff("n2", "n3", 1_990, 5, -1), // its requests include request 999 (8 ms)
            new RaftKvLeadership.Handoff("n3", "n1", 10_000, 5, -1)); // only 1 ms ones
        RaftKvRep blade = new RaftKvRep("blade-g1", 1, base.load(), new RaftKvLeadership.Changes(handoffs, List.of(),
            collections), 2, base.collections(), 50, 30, null, null);
        String md = RaftKvTable.markdown(List.of("g1", "blade-g1"), List.of(rep("g1", 1, 8_000, 0, null), blade));
        assertThat(md).contains("| hand-offs' cost to clients: the worst request around each, p50 / max (ms) | - |"
            + " 1.0, 8.0 |");
        assertThat(md).contains("| Blade's collections: follower / leader in place / leader after a hand-off |"
            + " 0 / 0 / 0 | 3 / 1 / 1 |");
        assertThat(md).contains("| ... their pauses, p50 / max each (ms) | - / - / - | 30.0, 40.0 / 25.0, 25.0 /"
            + " 50.0, 50.0 |");
    }

    @Test
    void epsilonHeapFollowsTheMeasuredAllocation() {
        Duration life = Duration.ofSeconds(100);
        assertThat(RaftKvScenario.epsilonHeapMib(20, life)).isEqualTo(3072); // 20 x 100 x 1.5 = 3,000
        assertThat(RaftKvScenario.epsilonHeapMib(1, life)).isEqualTo(1024);
        assertThat(RaftKvScenario.epsilonHeapMib(500, life)).isEqualTo(RaftKvScenario.EPSILON_MAX_MIB);
        assertThat(RaftKvScenario.epsilonHeapMib(Double.NaN, life)).isEqualTo(RaftKvScenario.EPSILON_DEFAULT_MIB);
    }
}
