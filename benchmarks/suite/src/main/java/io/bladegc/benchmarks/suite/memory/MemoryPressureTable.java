package io.bladegc.benchmarks.suite.memory;

import io.bladegc.benchmarks.suite.harness.ConcurrentStalls;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.SuiteTable;
import io.bladegc.benchmarks.suite.harness.WindowCost;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@value MemoryPressureScenario#NAME} scenario's results as markdown tables: the rate searches (one row per heap
 * ratio and arm, with the highest rate that kept the latency percentile under the target, what was measured there,
 * and why a search ended without one); what each search's first window cost at the starting rate (tail, CPU per
 * request, memory, a concurrent collector's stalls); and per arm the smallest heap at which that rate's p99.9 stays
 * within a factor of Epsilon's (the cost of a short tail). Stateless.
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
     * @param first    the search's first window (at its starting rate), empty when it did not complete one
     */
    public record Row(String arm, double ratio, long heapMib, Optional<RateSearch.Result> search,
                      Optional<String> failure, Optional<WindowCost> first) {
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

    /**
     * @param rows    the searches, in row order
     * @param epsilon Epsilon's window at the same rate (no collection: the floor), empty when it did not complete
     * @return one row per search's first window, then Epsilon's: p99, p99.9, errors, CPU per 1,000 requests, peak
     *     RSS, stalls
     */
    public static String firstWindows(List<Row> rows, Optional<WindowCost> epsilon) {
        StringBuilder sb = new StringBuilder("| heap / live | heap per backend (MiB) | arm | rate (/s) | p99 (ms) |"
            + " p99.9 (ms) | client errors | backends' CPU per 1000 requests (s) | largest backend's peak RSS (MiB) |"
            + " concurrent-collector stalls (count, time) |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s |%n", SuiteTable.number(r.ratio()), r.heapMib(),
                r.arm(), r.first().map(MemoryPressureTable::costCells).orElse("- | - | - | - | - | - | did not"
                    + " complete a window")));
        }
        epsilon.ifPresent(e -> sb.append("| - | - | epsilon | ").append(costCells(e)).append(" |\n"));
        return sb.toString();
    }

    /**
     * @param rows    the searches, in row order
     * @param epsilon Epsilon's window at the same rate, empty when it did not complete (then nothing can be judged)
     * @param factor  how far above Epsilon's p99.9 a passing arm may be, e.g. 2
     * @return per arm (in the order of first appearance) the smallest heap ratio whose first window had no client
     *     error and a p99.9 within {@code factor} x Epsilon's, with its CPU per request and memory there
     */
    public static String cost(List<Row> rows, Optional<WindowCost> epsilon, double factor) {
        if (epsilon.isEmpty()) {
            return "Epsilon did not complete its window: the heap each arm needs cannot be judged.\n";
        }
        long limit = Math.round(epsilon.get().p999Micros() * factor);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "| arm | smallest heap / live with p99.9 <="
            + " %s x Epsilon's (%s ms) at %.0f/s | heap per backend (MiB) | p99.9 there (ms) | CPU per 1000 requests"
            + " there (s) | largest backend's peak RSS there (MiB) |%n|---|---:|---:|---:|---:|---:|%n",
            SuiteTable.number(factor), SuiteTable.ms(limit), epsilon.get().rate()));
        for (String arm : rows.stream().map(Row::arm).distinct().toList()) {
            Optional<Row> smallest = rows.stream().filter(r -> r.arm().equals(arm))
                .filter(r -> r.first().filter(w -> w.errors() == 0 && w.p999Micros() <= limit).isPresent())
                .min(Comparator.comparingDouble(Row::ratio));
            sb.append(smallest.map(r -> {
                WindowCost w = r.first().orElseThrow();
                return String.format(Locale.ROOT, "| %s | %s | %d | %s | %.2f | %d |%n", arm,
                    SuiteTable.number(r.ratio()), r.heapMib(), SuiteTable.ms(w.p999Micros()),
                    w.cpuSecondsPerThousand(), w.peakRssMib());
            }).orElse("| " + arm + " | none of the ratios | - | - | - | - |\n"));
        }
        return sb.toString();
    }

    private static String costCells(WindowCost w) {
        return String.format(Locale.ROOT, "%.0f | %s | %s | %d | %.2f | %d | %s", w.rate(),
            SuiteTable.ms(w.p99Micros()), SuiteTable.ms(w.p999Micros()), w.errors(), w.cpuSecondsPerThousand(),
            w.peakRssMib(), w.stalls().map(ConcurrentStalls::text).orElse("-"));
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
