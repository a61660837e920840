package io.bladegc.benchmarks.suite.grpc;

import io.bladegc.benchmarks.suite.harness.SuiteTable;
import io.bladegc.benchmarks.suite.http.GoalsTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The {@code grpc-cluster} scenario's tables: one column per arm, all repetitions together (latency percentiles of the
 * OK calls from the merged histogram, counts added up), and the goals of the benchmark issue for every Blade arm
 * ({@code blade-*}): p99.9 at most 1.2 times Epsilon's and at most 0.1 times G1's ({@link GoalsTable}'s rows).
 * Stateless.
 */
final class GrpcClusterTable {
    private static final double[] PERCENTILES = {50, 99, 99.9};

    private GrpcClusterTable() {
    }

    /**
     * @param arms     the arms' names, in column order
     * @param reps     every completed repetition of every arm, any order
     * @param failures arm name to how many of its repetitions failed (absent: none)
     * @return the table, GitHub markdown, lines ending in a newline
     */
    static String markdown(List<String> arms, List<GrpcRep> reps, Map<String, Integer> failures) {
        return SuiteTable.render(arms, arms.stream().map(arm -> column(reps.stream()
            .filter(r -> r.arm().equals(arm)).toList(), failures.getOrDefault(arm, 0))).toList());
    }

    /** @return one arm's rows, label to value; "-" throughout when no repetition completed */
    static Map<String, String> column(List<GrpcRep> reps, int failed) {
        Map<String, String> rows = new LinkedHashMap<>();
        SuiteTable.putLatencyRows(rows, merged(reps), PERCENTILES);
        rows.put("repetitions (failed)", reps.size() + " (" + failed + ")");
        rows.put("achieved rate (/s, mean)", reps.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f",
            reps.stream().mapToDouble(r -> r.load().achievedRate()).average().orElse(0)));
        rows.put("calls", sum(reps, r -> r.load().calls()));
        rows.put("failed calls (final status not OK)", sum(reps, r -> r.load().failed()));
        Map<String, Long> byStatus = new TreeMap<>();
        reps.forEach(r -> r.load().failedByStatus().forEach((status, n) -> byStatus.merge(status, n, Long::sum)));
        rows.put("... by status", byStatus.isEmpty() ? "-" : byStatus.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")));
        rows.put("calls shed by a backend (retried)", sum(reps, GrpcRep::shed));
        boolean blade = reps.stream().anyMatch(r -> r.forced() >= 0);
        rows.put("collections (forced by Blade)", reps.isEmpty() ? "-" : sum(reps, GrpcRep::collections)
            + (blade ? " (" + reps.stream().mapToLong(r -> Math.max(0, r.forced())).sum() + ")" : ""));
        return rows;
    }

    /** @return the repetitions' OK latencies added up, microseconds (empty when there are none) */
    static Histogram merged(List<GrpcRep> reps) {
        Histogram merged = new Histogram(GrpcOpenLoop.MAX_LATENCY_MICROS, 3);
        reps.forEach(r -> merged.add(r.load().ok()));
        return merged;
    }

    /**
     * @param merged arm name to its OK latencies over all repetitions, microseconds
     * @return the goals, one column per Blade arm with latencies, markdown (lines ending in a newline); an empty
     *     string without one. A goal whose reference arm did not run reads "-".
     */
    static String goals(Map<String, Histogram> merged) {
        List<String> blades = GoalsTable.bladeArms(merged);
        if (blades.isEmpty()) {
            return "";
        }
        StringBuilder sb = GoalsTable.heading(blades);
        GoalsTable.row(sb, "p99.9 <= 1.2 x epsilon's", blades, b -> GoalsTable.ratio(merged, b, "epsilon", 99.9, 1.2));
        GoalsTable.row(sb, "p99.9 <= 0.1 x g1's", blades, b -> GoalsTable.ratio(merged, b, "g1", 99.9, 0.1));
        return sb.toString();
    }

    private static String sum(List<GrpcRep> reps, ToLongFunction<GrpcRep> f) {
        return reps.isEmpty() ? "-" : Long.toString(reps.stream().mapToLong(f).sum());
    }
}
