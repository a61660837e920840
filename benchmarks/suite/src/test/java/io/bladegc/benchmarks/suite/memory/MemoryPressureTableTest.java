package io.bladegc.benchmarks.suite.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.harness.ConcurrentStalls;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.WindowCost;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MemoryPressureTableTest {
    @Test
    void oneRowPerSearchWithTheHighestPassingRateAndWhyASearchEnded() {
        RateSearch.Result found = new RateSearch.Result(List.of(new RateSearch.Probe(600, 3_000, 0),
            new RateSearch.Probe(900, 4_500, 0), new RateSearch.Probe(1350, 80_000, 2)),
            Optional.of(new RateSearch.Probe(900, 4_500, 0)), Optional.of(new RateSearch.Probe(1350, 80_000, 2)),
            Optional.empty());
        RateSearch.Result bound = new RateSearch.Result(List.of(new RateSearch.Probe(600, 3_000, 0)),
            Optional.of(new RateSearch.Probe(600, 3_000, 0)), Optional.empty(), Optional.empty());
        RateSearch.Result none = new RateSearch.Result(List.of(new RateSearch.Probe(600, 90_000, 0)),
            Optional.empty(), Optional.of(new RateSearch.Probe(600, 90_000, 0)),
            Optional.of("measuring failed: backend n2 (pid 7) exited"));
        List<MemoryPressureTable.Row> rows = List.of(
            new MemoryPressureTable.Row("g1", 8, 1040, Optional.of(found), Optional.empty(), Optional.empty()),
            new MemoryPressureTable.Row("blade-parallel", 8, 1040, Optional.of(bound), Optional.empty(),
                Optional.empty()),
            new MemoryPressureTable.Row("g1", 1.5, 195, Optional.of(none),
                Optional.of("measuring failed: backend n2 (pid 7) exited; out of memory (OutOfMemoryError in n2.out)"),
                Optional.empty()),
            new MemoryPressureTable.Row("blade-parallel", 1.25, 163, Optional.empty(),
                Optional.of("did not start: n1 exited (status 1) | before LISTENING"), Optional.empty()));

        String md = MemoryPressureTable.markdown(rows, 99, 10_000);

        assertThat(md).startsWith("| heap / live | heap per backend (MiB) | arm | highest rate with p99 < 10 ms (/s)"
            + " | p99 there (ms) | client errors there | lowest rate that missed (/s) | client-visible errors, all"
            + " windows | windows | note |\n");
        assertThat(md).contains("| 8 | 1040 | g1 | 900 | 4.50 | 0 | 1350 | yes: 2 | 3 |  |\n");
        assertThat(md).contains("| 8 | 1040 | blade-parallel | 600 | 3.00 | 0 | - | none | 1 | no window missed: a"
            + " lower bound (windows or ceiling ran out) |\n");
        assertThat(md).contains("| 1.5 | 195 | g1 | none | - | - | 600 | none | 1 | measuring failed: backend n2"
            + " (pid 7) exited; out of memory (OutOfMemoryError in n2.out) |\n");
        assertThat(md).contains("| 1.25 | 163 | blade-parallel | none | - | - | - | - | 0 | did not start: n1 exited"
            + " (status 1) / before LISTENING |\n");
    }

    @Test
    void theFirstWindowsCostsAndPerArmTheSmallestHeapWithinTwiceEpsilonsTail() {
        WindowCost epsilon = new WindowCost(600, 9_000, 0, 2_000, 4_000, 2.7, 2_200_000, Optional.empty());
        List<MemoryPressureTable.Row> rows = List.of(
            row("g1", 4, 400, new WindowCost(600, 9_000, 0, 3_000, 7_900, 4.5, 480_000, Optional.empty())),
            row("genzgc", 4, 400, new WindowCost(600, 9_000, 0, 3_100, 6_000, 9.0, 560_000,
                Optional.of(ConcurrentStalls.NONE))),
            row("g1", 2, 200, new WindowCost(600, 9_000, 0, 3_000, 8_001, 4.0, 260_000, Optional.empty())),
            row("genzgc", 2, 200, new WindowCost(600, 9_000, 3, 30_000, 90_000, 9.9, 300_000,
                Optional.of(new ConcurrentStalls(12, 840)))),
            new MemoryPressureTable.Row("blade-g1", 4, 400, Optional.empty(), Optional.of("did not start"),
                Optional.empty()));

        String first = MemoryPressureTable.firstWindows(rows, Optional.of(epsilon));
        String cost = MemoryPressureTable.cost(rows, Optional.of(epsilon), 2);

        assertThat(first).contains("| 4 | 400 | genzgc | 600 | 3.10 | 6.00 | 0 | 1.00 | 547 | 0 |\n")
            .contains("| 2 | 200 | genzgc | 600 | 30.00 | 90.00 | 3 | 1.10 | 293 | 12 (840 ms) |\n")
            .contains("| 4 | 400 | blade-g1 | - | - | - | - | - | - | did not complete a window |\n")
            .endsWith("| - | - | epsilon | 600 | 2.00 | 4.00 | 0 | 0.30 | 2148 | - |\n");
        assertThat(cost).contains("p99.9 <= 2 x Epsilon's (8.00 ms) at 600/s")
            .contains("| g1 | 4 | 400 | 7.90 | 0.50 | 469 |\n") // 2 x missed by 1 us
            .contains("| genzgc | 4 | 400 | 6.00 | 1.00 | 547 |\n") // 2 x had client errors
            .contains("| blade-g1 | none of the ratios | - | - | - | - |\n");
        assertThat(MemoryPressureTable.cost(rows, Optional.empty(), 2)).contains("cannot be judged");
    }

    private static MemoryPressureTable.Row row(String arm, double ratio, long heapMib, WindowCost first) {
        return new MemoryPressureTable.Row(arm, ratio, heapMib, Optional.empty(), Optional.empty(), Optional.of(first));
    }
}
