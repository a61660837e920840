package io.bladegc.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RaftKvTableTest {
    /** 10,000 latencies: 9,990 of {@code typicalMicros}, 10 (0.1 %) of {@code tailMicros}. */
    private static Histogram latencies(long typicalMicros, long tailMicros) {
        Histogram h = new Histogram(60_000_000L, 3);
        h.recordValueWithCount(typicalMicros, 9_990);
        h.recordValueWithCount(tailMicros, 10);
        return h;
    }

    private static RaftKvTable.ArmOutcome arm(String name, long tailMicros, long terms, long transfers) {
        Histogram moved = new Histogram(60_000_000L, 3);
        if (transfers > 0) {
            moved.recordValue(40_000);
            moved.recordValue(60_000);
        }
        RaftKvLoad.Result load = new RaftKvLoad.Result(latencies(1_000, tailMicros), moved, 10_000, 1, 2, 3, 2_500,
            20);
        return new RaftKvTable.ArmOutcome(name, load, terms, transfers, 1, List.of(4, 5, 6), 12.5, 30.25, null);
    }

    @Test
    void oneColumnPerArmWithEveryRow() {
        String md = RaftKvTable.markdown(List.of(arm("g1", 80_000, 0, 0), arm("blade-parallel", 8_000, 3, 2),
            RaftKvTableTest.failed("epsilon")));
        assertThat(md).startsWith("| | g1 | blade-parallel | epsilon |\n|---|---:|---:|---:|\n");
        assertThat(md).contains("| p50 (ms) | 1.00 | 1.00 | failed |");
        assertThat(md).contains("| p99.99 (ms) | 80.06 | 8.00 | failed |");
        assertThat(md).contains("| achieved rate (/s) | 500.0 | 500.0 | failed |");
        assertThat(md).contains("| errors / timeouts | 1 / 2 | 1 / 2 | failed |");
        assertThat(md).contains("| load generator's worst send lag (ms) | 2.5 | 2.5 | failed |");
        assertThat(md).contains("| elections (terms advanced - transfers) | 0 (0 - 0) | 1 (3 - 2) | failed |");
        assertThat(md).contains("| hand-offs that did not complete (Blade's `not handed off`) | 1 | 1 | failed |");
        assertThat(md).contains("| collections per peer (n1/n2/n3) | 4/5/6 | 4/5/6 | failed |");
        assertThat(md).contains("| answered by another server than the client's previous answer | 0 | 2 | failed |");
        assertThat(md).contains("| ... their latency p50 / max (ms) | - | 40.03 / 60.03 | failed |");
        assertThat(md).contains("| allocation, busiest peer (MiB/s, GC log) | 30.3 | 30.3 | failed |");
    }

    @Test
    void goalsAreRatiosOfTheSameRun() {
        String md = RaftKvTable.goals(List.of(arm("g1", 80_000, 0, 0), arm("blade-parallel", 8_000, 2, 2),
            arm("epsilon", 7_000, 0, 0)));
        assertThat(md).contains("| p99.99 <= 1.5 x epsilon's | 1.14 x (8.00 / 7.00 ms): met |");
        assertThat(md).contains("| p99.99 <= 0.1 x g1's | 0.10 x (8.00 / 80.06 ms): met |");
        assertThat(md).contains("| no elections caused by collections | 0 elections: met |");
        String missing = RaftKvTable.goals(List.of(arm("blade-parallel", 8_000, 5, 2)));
        assertThat(missing).contains("| p99.99 <= 1.5 x epsilon's | - |");
        assertThat(missing).contains("| no elections caused by collections | 3 elections: not met |");
    }

    @Test
    void epsilonHeapFollowsTheMeasuredAllocation() {
        Duration life = Duration.ofSeconds(100);
        assertThat(RaftKvScenario.epsilonHeapMib(20, life)).isEqualTo(3072); // 20 x 100 x 1.5 = 3,000
        assertThat(RaftKvScenario.epsilonHeapMib(1, life)).isEqualTo(1024);
        assertThat(RaftKvScenario.epsilonHeapMib(500, life)).isEqualTo(RaftKvScenario.EPSILON_MAX_MIB);
        assertThat(RaftKvScenario.epsilonHeapMib(Double.NaN, life)).isEqualTo(RaftKvScenario.EPSILON_DEFAULT_MIB);
    }

    private static RaftKvTable.ArmOutcome failed(String name) {
        return new RaftKvTable.ArmOutcome(name, null, -1, 0, 0, List.of(), 0, Double.NaN, "boom");
    }
}
