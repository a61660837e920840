package io.bladegc.benchmarks.suite.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.RepResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class GoalsTableTest {
    /** 10,000 latencies: 9,980 of {@code typicalMicros}, 20 (0.2 %) of {@code tailMicros}. */
    private static Histogram latencies(long typicalMicros, long tailMicros) {
        Histogram h = new Histogram(60_000_000L, 3);
        h.recordValueWithCount(typicalMicros, 9_980);
        h.recordValueWithCount(tailMicros, 20);
        return h;
    }

    private static RepResult rep(String arm, Histogram ok, double cpuSeconds, long shed) {
        return new RepResult(arm, 1, ok, 600, ok.getTotalCount(), shed, 0, 0, cpuSeconds, 0, -1, -1, 0, -1);
    }

    @Test
    void eachBladeArmIsHeldToTheIssuesRatios() {
        Map<String, Histogram> merged = new LinkedHashMap<>();
        merged.put("g1", latencies(1_000, 60_000));
        merged.put("blade-parallel", latencies(1_000, 8_000));
        merged.put("blade-g1", latencies(1_000, 5_000));
        merged.put("epsilon", latencies(1_000, 7_000));
        merged.put("genzgc", latencies(1_000, 40_000));
        List<RepResult> results = List.of(rep("g1", merged.get("g1"), 10, 0),
            rep("blade-parallel", merged.get("blade-parallel"), 14, 0), rep("blade-g1", merged.get("blade-g1"), 20, 3),
            rep("epsilon", merged.get("epsilon"), 7, 0), rep("genzgc", merged.get("genzgc"), 20, 0));

        Map<String, Optional<RateSearch.Probe>> highest = Map.of("g1", Optional.of(new RateSearch.Probe(500, 9_000, 0)),
            "blade-parallel", Optional.of(new RateSearch.Probe(1_500, 8_000, 0)));
        String md = GoalsTable.markdown(merged, results, highest);

        assertThat(md).startsWith("| goal | blade-parallel | blade-g1 |\n|---|---|---|\n");
        // p99.9, p99.99 and max are the tail value, as HdrHistogram reports it (60 ms: 60.03, 3 digits)
        assertThat(md).contains("| p99.9 <= 1.2 x epsilon's | 1.14 x (8.00 / 7.00 ms): met"
            + " | 0.71 x (5.00 / 7.00 ms): met |");
        assertThat(md).contains("| p99.9 <= 0.1 x g1's | 0.13 x (8.00 / 60.03 ms): not met"
            + " | 0.08 x (5.00 / 60.03 ms): met |");
        assertThat(md).contains("| CPU per request <= 0.85 x genzgc's | 0.70 x (1.40 / 2.00 CPU s per 1,000): met"
            + " | 1.00 x (2.00 / 2.00 CPU s per 1,000): not met |");
        assertThat(md).contains("| no client-visible errors | 0 (503s + errors): met | 3 (503s + errors): not met |");
        assertThat(md).contains("(the issue: 5 ms, under this machine's floor) | 3.00 x (1500 / 500 /s): met | - |");
        assertThat(md).contains("| the floor: epsilon's p99.9 over g1's (no arm can go below)"
            + " | 0.12 x (7.00 / 60.03 ms) | 0.12 x (7.00 / 60.03 ms) |");
    }

    @Test
    void aGoalWhoseReferenceArmDidNotRunReadsDashAndNoBladeArmMeansNoTable() {
        Map<String, Histogram> merged = new LinkedHashMap<>();
        merged.put("g1", latencies(1_000, 60_000));
        merged.put("blade-parallel", latencies(1_000, 8_000));
        String md = GoalsTable.markdown(merged, List.of(), Map.of("g1", Optional.empty(),
            "blade-parallel", Optional.of(new RateSearch.Probe(900, 8_000, 0))));
        assertThat(md).contains("| p99.99 <= genzgc's | - |").contains("| p99.9 <= 1.2 x epsilon's | - |")
            .contains("| max <= 0.1 x g1's | 0.13 x (8.00 / 60.03 ms): not met |")
            .contains("machine's floor) | 900 /s, g1 none: met |");
        assertThat(GoalsTable.markdown(Map.of("g1", latencies(1_000, 60_000)), List.of(), Map.of())).isEmpty();
    }
}
