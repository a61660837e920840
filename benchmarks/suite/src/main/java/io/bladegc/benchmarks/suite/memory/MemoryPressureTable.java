package io.bladegc.benchmarks.suite.memory;

import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.SuiteTable;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@value MemoryPressureScenario#NAME} scenario's results as a markdown table: one row per heap ratio and arm,
 * with the highest rate that kept the latency percentile under the target, what was measured there, and why a
 * search ended without one. Stateless.
 */
public final class MemoryPressureTable {
    /**
     * One (ratio, arm) search.
     *
     * @param arm      the arm's name
     * @param ratio    heap size over the measured live footprint
     * @param heapMib  heap of every backend, MiB
     * @param search   the rate search, empty when the cluster did not start
     * @param failure  why the cluster did not start or the search ended early (first line of the reason), or empty
     */
    public record Row(String arm, double ratio, long heapMib, Optional<RateSearch.Result> search,
                      Optional<String> failure) {
    }

    private MemoryPressureTable() {
    }

    /**
     * @param rows         the searches, in row order
     * @param percentile   the latency percentile searched on, e.g. 99
     * @param targetMicros the target it stayed under
     * @return the table, GitHub markdown, lines ending in a newline
     */
    public static String markdown(List<Row> rows, double percentile, long targetMicros) {
        String p = "p" + SuiteTable.number(percentile);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "| heap / live | heap per backend (MiB) | arm"
            + " | highest rate with %s < %s ms (/s) | %s there (ms) | client errors there | lowest rate that missed"
            + " (/s) | client-visible errors, all windows | windows | note |%n|---:|---:|---|---:|---:|---:|---:|---:|"
            + "---:|---|%n", p,
            SuiteTable.number(targetMicros / 1000.0), p));
        for (Row r : rows) {
            Optional<RateSearch.Probe> best = r.search().flatMap(RateSearch.Result::passed);
            long errorsAll = r.search().map(RateSearch.Result::errorsInAnyProbe).orElse(0L);
            sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %d | %s |%n",
                SuiteTable.number(r.ratio()), r.heapMib(), r.arm(),
                best.map(b -> String.format(Locale.ROOT, "%.0f", b.rate())).orElse("none"),
                best.map(b -> String.format(Locale.ROOT, "%.2f", b.latencyMicros() / 1000.0)).orElse("-"),
                best.map(b -> Long.toString(b.errors())).orElse("-"),
                r.search().flatMap(RateSearch.Result::missed).map(m -> String.format(Locale.ROOT, "%.0f", m.rate()))
                    .orElse("-"),
                r.search().isEmpty() ? "-" : errorsAll == 0 ? "none" : "yes: " + errorsAll,
                r.search().map(s -> s.probes().size()).orElse(0), note(r)));
        }
        return sb.toString();
    }

    private static String note(Row r) {
        if (r.failure().isPresent()) {
            return r.failure().get().replace('|', '/');
        }
        if (r.search().isEmpty()) {
            return "";
        }
        RateSearch.Result s = r.search().get();
        if (s.passed().isEmpty()) {
            return "no window passed, down to the lowest rate probed";
        }
        return s.missed().isEmpty() ? "no window missed: a lower bound (windows or ceiling ran out)" : "";
    }
}
