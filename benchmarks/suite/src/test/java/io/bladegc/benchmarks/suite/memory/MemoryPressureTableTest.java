package io.bladegc.benchmarks.suite.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.harness.RateSearch;
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
            new MemoryPressureTable.Row("g1", 8, 1040, Optional.of(found), Optional.empty()),
            new MemoryPressureTable.Row("blade-parallel", 8, 1040, Optional.of(bound), Optional.empty()),
            new MemoryPressureTable.Row("g1", 1.5, 195, Optional.of(none),
                Optional.of("measuring failed: backend n2 (pid 7) exited; out of memory (OutOfMemoryError in n2.out)")),
            new MemoryPressureTable.Row("blade-parallel", 1.25, 163, Optional.empty(),
                Optional.of("did not start: n1 exited (status 1) | before LISTENING")));

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
}
