package io.bladegc.benchmarks.suite.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class GrpcClusterTableTest {
    /** 10,000 latencies: 9,980 of {@code typicalMicros}, 20 (0.2 %) of {@code tailMicros}. */
    private static Histogram latencies(long typicalMicros, long tailMicros) {
        Histogram h = new Histogram(GrpcOpenLoop.MAX_LATENCY_MICROS, 3);
        h.recordValueWithCount(typicalMicros, 9_980);
        h.recordValueWithCount(tailMicros, 20);
        return h;
    }

    private static GrpcRep rep(String arm, int rep, Histogram ok, Map<String, Long> failed, long forced) {
        GrpcOpenLoop.Result load = new GrpcOpenLoop.Result(ok, ok.getTotalCount() + failed.values().stream()
            .mapToLong(Long::longValue).sum(), failed, 600, 100);
        return new GrpcRep(arm, rep, load, 12, forced, forced >= 0 ? 40 : 0);
    }

    @Test
    void oneColumnPerArmWithTheRepetitionsMergedAndAddedUp() {
        List<GrpcRep> reps = List.of(rep("g1", 1, latencies(1_000, 60_000), Map.of(), -1),
            rep("blade-parallel", 1, latencies(1_000, 5_000), Map.of("UNAVAILABLE", 2L), 10),
            rep("blade-parallel", 2, latencies(2_000, 5_000), Map.of("UNAVAILABLE", 1L, "unfinished", 1L), 11));

        String md = GrpcClusterTable.markdown(List.of("g1", "blade-parallel", "epsilon"), reps, Map.of("epsilon", 1));

        assertThat(md).startsWith("| | g1 | blade-parallel | epsilon |\n|---|---:|---:|---:|\n"
            + "| p50 (ms) | 1.00 | 2.00 | - |\n| p99 (ms) | 1.00 | 2.00 | - |\n"
            // 40 of 20,000 at 5 ms: p99.9 is 5 ms; g1's tail, 60 ms, as HdrHistogram reports it (3 digits)
            + "| p99.9 (ms) | 60.03 | 5.00 | - |\n| max (ms) | 60.03 | 5.00 | - |\n");
        assertThat(md).contains("| repetitions (failed) | 1 (0) | 2 (0) | 0 (1) |\n");
        assertThat(md).contains("| calls | 10000 | 20004 | - |\n");
        assertThat(md).contains("| failed calls (final status not OK) | 0 | 4 | - |\n");
        assertThat(md).contains("| ... by status | - | UNAVAILABLE 3, unfinished 1 | - |\n");
        assertThat(md).contains("| calls shed by a backend (retried) | 0 | 80 | - |\n");
        assertThat(md).contains("| collections (forced by Blade) | 12 | 24 (21) | - |\n");
    }

    @Test
    void bladesP999IsHeldToEpsilonsAndG1s() {
        Map<String, Histogram> merged = new LinkedHashMap<>();
        merged.put("g1", latencies(1_000, 60_000));
        merged.put("blade-parallel", latencies(1_000, 8_000));
        merged.put("epsilon", latencies(1_000, 7_000));

        assertThat(GrpcClusterTable.goals(merged)).isEqualTo("| goal | blade-parallel |\n|---|---|\n"
            + "| p99.9 <= 1.2 x epsilon's | 1.14 x (8.00 / 7.00 ms): met |\n"
            + "| p99.9 <= 0.1 x g1's | 0.13 x (8.00 / 60.03 ms): not met |\n");
    }

    @Test
    void aGoalWhoseReferenceDidNotRunReadsDashAndWithoutBladeThereAreNoGoals() {
        Map<String, Histogram> merged = new LinkedHashMap<>();
        merged.put("g1", latencies(1_000, 60_000));
        merged.put("blade-parallel", latencies(1_000, 5_000));
        merged.put("epsilon", new Histogram(3));
        assertThat(GrpcClusterTable.goals(merged)).contains("| p99.9 <= 1.2 x epsilon's | - |")
            .contains("| p99.9 <= 0.1 x g1's | 0.08 x (5.00 / 60.03 ms): met |");
        assertThat(GrpcClusterTable.goals(Map.of("g1", latencies(1_000, 60_000)))).isEmpty();
    }
}
