package io.bladegc.benchmarks.suite.raftkv;

import static io.bladegc.benchmarks.suite.harness.SuiteTable.ms;

import io.bladegc.benchmarks.suite.harness.SuiteTable;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The {@code raft-kv} scenario's table: one column per arm, all repetitions together (latency percentiles from the
 * merged histogram, counts added up, worst values the worst of any repetition), then what the machine did during the
 * windows: where the time goes when even Epsilon is slow. Stateless.
 */
final class RaftKvTable {
    private static final double[] PERCENTILES = {50, 95, 99, 99.9, 99.99};

    private RaftKvTable() {
    }

    /**
     * @param arms the arms' names, in column order
     * @param reps every repetition of every arm, any order
     * @return the table, markdown, lines ending in a newline
     */
    static String markdown(List<String> arms, List<RaftKvRep> reps) {
        return SuiteTable.render(arms, arms.stream()
            .map(arm -> column(reps.stream().filter(r -> r.arm().equals(arm)).toList())).toList());
    }

    /** @return the answered requests' latencies of the measured repetitions, merged, microseconds */
    static Histogram merged(List<RaftKvRep> reps) {
        Histogram h = new Histogram(RaftKvLoad.MAX_LATENCY_MICROS, 3);
        reps.stream().filter(RaftKvRep::measured).forEach(r -> h.add(r.load().latency()));
        return h;
    }

    /** @return one arm's rows, label to value */
    static Map<String, String> column(List<RaftKvRep> all) {
        List<RaftKvRep> reps = all.stream().filter(RaftKvRep::measured).toList();
        Map<String, String> rows = new LinkedHashMap<>();
        SuiteTable.putLatencyRows(rows, merged(reps), PERCENTILES);
        rows.put("p99.99 per repetition (ms)", reps.isEmpty() ? "-" : reps.stream()
            .map(r -> ms(r.load().latency().getValueAtPercentile(99.99))).collect(Collectors.joining(", ")));
        rows.put("repetitions (failed)", reps.size() + " (" + (all.size() - reps.size()) + ")");
        rows.put("achieved rate (/s, mean)", mean(reps, r -> r.load().achievedRate(), "%.1f"));
        rows.put("requests due in the windows", sum(reps, r -> r.load().requests().count()));
        rows.put("failed client calls", sum(reps, r -> r.load().requests().all().failed()));
        Map<String, Long> causes = new TreeMap<>();
        reps.forEach(r -> r.load().failureCauses().forEach((cause, n) -> causes.merge(cause, n, Long::sum)));
        rows.put("... by cause", causes.isEmpty() ? "-" : causes.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")));
        rows.put("timed out (no answer by the deadline)", sum(reps, r -> r.load().requests().all().timedOut()));
        rows.put("requests that waited out an attempt timeout", sum(reps,
            r -> r.load().requests().all().attemptTimeouts()));
        rows.put("attempts sent again: leadership moving / other", reps.isEmpty() ? "-"
            : sum(reps, r -> r.load().leaderResends()) + " / " + sum(reps, r -> r.load().otherResends()));
        rows.put("load generator's worst send lag (ms)", reps.isEmpty() ? "-"
            : ms(max(reps, r -> r.load().sendLag())));
        rows.put("leadership hand-offs (not completed)", reps.isEmpty() ? "-" : sum(reps, r -> r.changes().handoffs()
            .size()) + " (" + sum(reps, r -> r.changes().handoffs().stream().filter(h -> !h.completed()).count())
            + ")");
        rows.put("hand-offs' cost to clients: the worst request around each, p50 / max (ms)",
            medianAndMax(RaftKvHandoffs.worstMillis(reps)));
        List<RaftKvLeadership.Collection> blade = reps.stream().flatMap(r -> r.changes().collections().stream())
            .toList();
        rows.put("Blade's collections: follower / leader in place / leader after a hand-off", reps.isEmpty() ? "-"
            : Arrays.stream(RaftKvLeadership.Role.values()).map(role -> Long.toString(blade.stream()
                .filter(c -> c.role() == role).count())).collect(Collectors.joining(" / ")));
        rows.put("... their pauses, p50 / max each (ms)", reps.isEmpty() ? "-"
            : Arrays.stream(RaftKvLeadership.Role.values()).map(role -> medianAndMax(blade.stream()
                .filter(c -> c.role() == role).mapToDouble(RaftKvLeadership.Collection::pauseMillis).toArray()))
                .collect(Collectors.joining(" / ")));
        rows.put("elections outside hand-offs (peers' output)", sum(reps, RaftKvRep::elections));
        rows.put("terms advanced (GroupManagementApi)", reps.isEmpty() || reps.stream()
            .anyMatch(r -> r.termsAdvanced() < 0) ? "?" : sum(reps, RaftKvRep::termsAdvanced));
        rows.put("collections per peer (n1/n2/n3), per repetition", reps.isEmpty() ? "-" : reps.stream()
            .map(r -> r.collections().stream().map(String::valueOf).collect(Collectors.joining("/")))
            .collect(Collectors.joining(", ")));
        rows.put("longest GC pause (ms)", reps.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f",
            reps.stream().mapToDouble(RaftKvRep::longestPause).max().orElse(0)));
        rows.put("allocation, busiest peer (MiB/s, GC log)", reps.stream().mapToDouble(RaftKvRep::allocation)
            .filter(a -> !Double.isNaN(a)).max().stream().mapToObj(a -> String.format(Locale.ROOT, "%.1f", a))
            .findFirst().orElse("-"));
        List<RaftKvRep> used = reps.stream().filter(r -> r.usage() != null).toList();
        rows.put("cores busy in the window (mean): machine (steal) / peers / load generator", used.isEmpty() ? "-"
            : String.format(Locale.ROOT, "%.2f (%.2f) / %.2f / %.2f", meanOf(used, u -> u.machineCores()),
                meanOf(used, u -> u.stealCores()), meanOf(used, u -> u.peerCores()),
                meanOf(used, u -> u.loadCores())));
        Histogram late = new Histogram(3);
        used.forEach(r -> late.add(r.usage().jitter().overshoot()));
        rows.put("1 ms sleeps late during the window, p99.9 / max (ms)", late.getTotalCount() == 0 ? "-"
            : ms(late.getValueAtPercentile(99.9)) + " / " + ms(late.getMaxValue()));
        return rows;
    }

    /** @return {@code "<median>, <max>"} of the values, ms to one decimal, or "-" when there are none */
    static String medianAndMax(double[] values) {
        if (values.length == 0) {
            return "-";
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%.1f, %.1f", sorted[(sorted.length - 1) / 2], sorted[sorted.length - 1]);
    }

    private static String sum(List<RaftKvRep> reps, ToLongFunction<RaftKvRep> f) {
        return reps.isEmpty() ? "-" : Long.toString(reps.stream().mapToLong(f).sum());
    }

    private static long max(List<RaftKvRep> reps, ToLongFunction<RaftKvRep> f) {
        return reps.stream().mapToLong(f).max().orElse(0);
    }

    private static String mean(List<RaftKvRep> reps, ToDoubleFunction<RaftKvRep> f, String format) {
        return reps.isEmpty() ? "-" : String.format(Locale.ROOT, format, reps.stream().mapToDouble(f).average()
            .orElse(0));
    }

    private static double meanOf(List<RaftKvRep> reps, Function<RaftKvRep.Usage, Double> f) {
        return reps.stream().mapToDouble(r -> f.apply(r.usage())).average().orElse(Double.NaN);
    }
}
