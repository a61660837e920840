package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SuiteTableTest {
    /** A histogram of {@code count} values of {@code micros} each. */
    private static Histogram latencies(long count, long micros) {
        Histogram h = new Histogram(60_000_000L, 3);
        h.recordValueWithCount(micros, count);
        return h;
    }

    private static RepResult rep(String arm, int rep, Histogram ok, long forced) {
        return new RepResult(arm, rep, ok, 600, ok.getTotalCount(), 2, 1, 3, 6.0, 300 * 1024L, forced,
            forced < 0 ? -1 : 1, 2, forced < 0 ? -1 : 1);
    }

    @Test
    void mergesTheRepetitionsAndShowsTheSpreadOfP999() {
        // rep 1: 1000 x 1 ms; rep 2: 990 x 1 ms + 10 x 100 ms. Merged 2000 values: 10 of 100 ms (0.5 %), so p99.9
        // and max are 100 ms and p99 is 1 ms; p99.9 per rep: 1 ms and 100 ms.
        Histogram second = latencies(990, 1000);
        second.add(latencies(10, 100_000));
        List<RepResult> results = List.of(rep("blade", 1, latencies(1000, 1000), 4), rep("blade", 2, second, 5),
            rep("g1", 1, latencies(1000, 2000), -1));
        String md = SuiteTable.markdown(List.of("g1", "blade"), results, Map.of("g1", 1));

        assertThat(md).startsWith("| | g1 | blade |\n|---|---:|---:|\n");
        assertThat(md).contains("| p50 (ms) | 2.00 | 1.00 |\n");
        assertThat(md).contains("| p99 (ms) | 2.00 | 1.00 |\n");
        assertThat(md).contains("| p99.9 (ms) | 2.00 | 100.03 |\n"); // the histogram's equivalent value at 100 ms
        assertThat(md).contains("| max (ms) | 2.00 | 100.03 |\n");
        assertThat(md).contains("| p99.9 across reps, min-max (ms) | 2.00-2.00 | 1.00-100.03 |\n");
        assertThat(md).contains("| repetitions (failed) | 1 (1) | 2 (0) |\n");
        assertThat(md).contains("| 503s seen by client | 2 | 4 |\n");
        assertThat(md).contains("| HAProxy retries | 3 | 6 |\n");
        assertThat(md).contains("| client errors | 1 | 2 |\n");
        // g1: 6 CPU s / 1000 requests; blade: 12 CPU s / 2000 requests
        assertThat(md).contains("| backend CPU s per 1,000 requests | 6.000 | 6.000 |\n");
        assertThat(md).contains("| peak RSS of a backend (MiB) | 300 | 300 |\n");
        assertThat(md).contains("| forced / escaped | - | 9 / 2 |\n")
            .contains("| full collections (forced by Blade) | 2 | 4 (2) |\n");
    }

    @Test
    void anArmWithNoCompletedRepetitionShowsDashes() {
        String md = SuiteTable.markdown(List.of("epsilon"), List.of(), Map.of("epsilon", 3));
        assertThat(md).contains("| p50 (ms) | - |\n").contains("| repetitions (failed) | 0 (3) |\n")
            .contains("| backend CPU s per 1,000 requests | - |\n");
        assertThat(SuiteTable.merged(List.of()).getTotalCount()).isZero();
    }

    @Test
    void withoutABalancerThereIsNoRetriesRow() {
        String md = SuiteTable.markdown(List.of("gci-g1"), List.of(rep("gci-g1", 1, latencies(100, 1000), 3)),
            Map.of(), false);
        assertThat(md).doesNotContain("HAProxy retries").contains("| 503s seen by client | 2 |\n")
            .contains("| forced / escaped | 3 / 1 |\n");
    }
}
