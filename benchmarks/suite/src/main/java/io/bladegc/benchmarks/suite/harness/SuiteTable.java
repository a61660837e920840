package io.bladegc.benchmarks.suite.harness;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;

/**
 * A suite's results as a markdown table, one column per arm: the client's 2xx latency percentiles from the histogram
 * merged over all repetitions, the spread of p99.9 across repetitions, then rates, counts and costs. Stateless.
 */
public final class SuiteTable {
    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};
    private static final String RETRIES = "HAProxy retries";

    private SuiteTable() {
    }

    /**
     * The table of arms behind a balancer (with its {@code HAProxy retries} row).
     *
     * @param arms     the arms' names, in column order
     * @param results  every repetition of every arm that completed, any order
     * @param failures arm name to how many of its repetitions failed (absent: none)
     * @return the table, GitHub markdown, lines ending in a newline
     */
    public static String markdown(List<String> arms, List<RepResult> results, Map<String, Integer> failures) {
        return markdown(arms, results, failures, true);
    }

    /**
     * @param arms     the arms' names, in column order
     * @param results  every repetition of every arm that completed, any order
     * @param failures arm name to how many of its repetitions failed (absent: none)
     * @param balancer whether the arms ran behind a balancer: without one there is no {@code HAProxy retries} row
     * @return the table, GitHub markdown, lines ending in a newline
     */
    public static String markdown(List<String> arms, List<RepResult> results, Map<String, Integer> failures,
                                  boolean balancer) {
        List<Map<String, String>> columns = new ArrayList<>();
        for (String arm : arms) {
            List<RepResult> reps = results.stream().filter(r -> r.arm().equals(arm)).toList();
            Map<String, String> column = column(reps, failures.getOrDefault(arm, 0));
            if (!balancer) {
                column.remove(RETRIES);
            }
            columns.add(column);
        }
        return render(arms, columns);
    }

    /**
     * @param arms    the arms' names, the columns' headings
     * @param columns per arm, in the same order, its rows: label to value, every arm the same labels in the same order
     * @return the columns side by side, one row per label, GitHub markdown, lines ending in a newline
     */
    public static String render(List<String> arms, List<Map<String, String>> columns) {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (Map<String, String> column : columns) {
            column.forEach((label, value) -> rows.computeIfAbsent(label, k -> new ArrayList<>()).add(value));
        }
        StringBuilder sb = new StringBuilder("| |");
        arms.forEach(a -> sb.append(' ').append(a).append(" |"));
        sb.append("\n|---|");
        arms.forEach(a -> sb.append("---:|"));
        sb.append('\n');
        rows.forEach((label, values) -> {
            sb.append("| ").append(label).append(" |");
            values.forEach(v -> sb.append(' ').append(v).append(" |"));
            sb.append('\n');
        });
        return sb.toString();
    }

    /** @return one arm's rows, label to value; "-" throughout when no repetition completed */
    static Map<String, String> column(List<RepResult> reps, int failed) {
        Map<String, String> rows = new LinkedHashMap<>();
        putLatencyRows(rows, merged(reps), PERCENTILES);
        rows.put("p99.9 across reps, min-max (ms)", spread(reps, r -> r.ok().getTotalCount() == 0 ? null
            : r.ok().getValueAtPercentile(99.9)));
        rows.put("repetitions (failed)", reps.size() + " (" + failed + ")");
        rows.put("achieved rate (/s, mean)", reps.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f",
            reps.stream().mapToDouble(RepResult::achievedRate).average().orElse(0)));
        rows.put("503s seen by client", sum(reps, RepResult::shed));
        rows.put(RETRIES, sum(reps, RepResult::retries));
        rows.put("client errors", sum(reps, RepResult::clientErrors));
        double cpu = cpuPerThousand(reps);
        rows.put("backend CPU s per 1,000 requests", Double.isNaN(cpu) ? "-" : String.format(Locale.ROOT, "%.3f",
            cpu));
        rows.put("peak RSS of a backend (MiB)", reps.isEmpty() ? "-" : Long.toString(
            reps.stream().mapToLong(RepResult::peakRssKib).max().orElse(0) / 1024));
        boolean blade = reps.stream().anyMatch(r -> r.forced() >= 0);
        rows.put("forced / escaped", blade ? reps.stream().mapToLong(r -> Math.max(0, r.forced())).sum() + " / "
            + reps.stream().mapToLong(r -> Math.max(0, r.escaped())).sum() : "-");
        rows.put("full collections (forced by Blade)", reps.isEmpty() ? "-" : sum(reps, RepResult::full)
            + (blade ? " (" + reps.stream().mapToLong(r -> Math.max(0, r.forcedFull())).sum() + ")" : ""));
        return rows;
    }

    /** @return the servers' CPU seconds per 1,000 requests sent over {@code reps}, NaN when none was sent */
    public static double cpuPerThousand(List<RepResult> reps) {
        long sent = reps.stream().mapToLong(RepResult::sent).sum();
        return sent == 0 ? Double.NaN : reps.stream().mapToDouble(RepResult::cpuSeconds).sum() * 1000 / sent;
    }

    /** @return the repetitions' 2xx latency histograms added up, microseconds (empty when there are none) */
    public static Histogram merged(List<RepResult> reps) {
        Histogram merged = new Histogram(3);
        reps.forEach(r -> merged.add(r.ok()));
        return merged;
    }

    /**
     * @param arms    the arms' names, in order
     * @param results every repetition of every arm that completed, any order
     * @return per arm, in {@code arms}' order, its 2xx latency over all its repetitions ({@link #merged})
     */
    public static Map<String, Histogram> mergedByArm(List<String> arms, List<RepResult> results) {
        Map<String, Histogram> merged = new LinkedHashMap<>();
        arms.forEach(a -> merged.put(a, merged(results.stream().filter(r -> r.arm().equals(a)).toList())));
        return merged;
    }

    /**
     * @param cpuOf     whose CPU time the table adds up, e.g. {@code "the three backends"}
     * @param peakRssOf whose peak RSS it shows, e.g. {@code "the largest backend's"}
     * @return what the table's rows are, for a report's footer: sentences on one line
     */
    public static String legend(String cpuOf, String peakRssOf) {
        return "Latency rows: 2xx at the client, all repetitions merged. Counts: all repetitions added. CPU: user +"
            + " system of " + cpuOf + " in the measured window (/proc). Peak RSS: " + peakRssOf + " VmHWM.";
    }

    private static String spread(List<RepResult> reps, Function<RepResult, Long> micros) {
        List<Long> values = reps.stream().map(micros).filter(v -> v != null).toList();
        if (values.isEmpty()) {
            return "-";
        }
        return ms(values.stream().mapToLong(Long::longValue).min().orElseThrow()) + "-"
            + ms(values.stream().mapToLong(Long::longValue).max().orElseThrow());
    }

    private static String sum(List<RepResult> reps, ToLongFunction<RepResult> f) {
        return reps.isEmpty() ? "-" : Long.toString(reps.stream().mapToLong(f).sum());
    }

    /**
     * Adds a latency histogram's rows to a column: {@code p<percentile> (ms)} for each percentile, then
     * {@code max (ms)}; "-" in each when the histogram is empty.
     *
     * @param rows        the column, label to value
     * @param latency     microseconds
     * @param percentiles e.g. {@code 50, 99.9}
     */
    public static void putLatencyRows(Map<String, String> rows, Histogram latency, double... percentiles) {
        boolean any = latency.getTotalCount() > 0;
        for (double p : percentiles) {
            rows.put("p" + number(p) + " (ms)", any ? ms(latency.getValueAtPercentile(p)) : "-");
        }
        rows.put("max (ms)", any ? ms(latency.getMaxValue()) : "-");
    }

    /** @return {@code x} without trailing zeros: 8, 1.5, 1.25 */
    public static String number(double x) {
        return BigDecimal.valueOf(x).stripTrailingZeros().toPlainString();
    }

    /** @return microseconds as milliseconds with two decimals */
    public static String ms(long micros) {
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }
}
