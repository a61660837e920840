package io.bladegc.benchmarks.suite;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The {@code raft-kv} scenario's tables: one column per arm (latency percentiles, rate, errors, elections, hand-offs,
 * collections, what a hand-off adds), then the goals from the same run. Stateless.
 */
final class RaftKvTable {
    /** The arm the goals are about. */
    static final String BLADE = "blade-parallel";

    /**
     * One arm's run.
     *
     * @param name          the arm
     * @param load          the measured window's load result, null when the arm failed
     * @param termsAdvanced how far the group's term moved during the window, -1 when unknown
     * @param transfers     Blade's hand-offs of the group's leadership during the window (all peers)
     * @param failedHandoffs Blade's hand-offs of the group's leadership that did not complete during the window
     * @param collections   collections with a pause per peer during the window, in peer order
     * @param longestPause  the longest GC pause of any peer during the window, ms
     * @param allocation    the most any peer allocated, MiB/s over its whole run (GC log), NaN when unknown
     * @param failure       why the arm failed, null when it completed
     */
    record ArmOutcome(String name, RaftKvLoad.Result load, long termsAdvanced, long transfers, long failedHandoffs,
                      List<Integer> collections, double longestPause, double allocation, String failure) {
        /** @return terms advanced that no hand-off explains, -1 when unknown */
        long elections() {
            return termsAdvanced < 0 ? -1 : Math.max(0, termsAdvanced - transfers);
        }
    }

    private RaftKvTable() {
    }

    /** @return the arms' table, markdown, lines ending in a newline */
    static String markdown(List<ArmOutcome> arms) {
        StringBuilder sb = new StringBuilder("| |");
        arms.forEach(a -> sb.append(' ').append(a.name()).append(" |"));
        sb.append("\n|---|");
        arms.forEach(a -> sb.append("---:|"));
        sb.append('\n');
        double[] percentiles = {50, 95, 99, 99.9, 99.99, 100};
        String[] labels = {"p50", "p95", "p99", "p99.9", "p99.99", "max"};
        for (int i = 0; i < percentiles.length; i++) {
            double p = percentiles[i];
            row(sb, labels[i] + " (ms)", arms, a -> ms(a.load().latency(), p));
        }
        row(sb, "achieved rate (/s)", arms, a -> String.format(Locale.ROOT, "%.1f", a.load().achievedRate()));
        row(sb, "requests due in the window", arms, a -> Long.toString(a.load().sent()));
        row(sb, "load generator's worst send lag (ms)", arms, a -> String.format(Locale.ROOT, "%.1f",
            a.load().sendLag() / 1000.0));
        row(sb, "errors / timeouts", arms, a -> a.load().errors() + " / " + a.load().timeouts());
        row(sb, "step-down refusals sent again", arms, a -> Long.toString(a.load().resent()));
        row(sb, "elections (terms advanced - transfers)", arms, a -> a.termsAdvanced() < 0 ? "?"
            : a.elections() + " (" + a.termsAdvanced() + " - " + a.transfers() + ")");
        row(sb, "leadership transfers (Blade's `handed`)", arms, a -> Long.toString(a.transfers()));
        row(sb, "hand-offs that did not complete (Blade's `not handed off`)", arms,
            a -> Long.toString(a.failedHandoffs()));
        row(sb, "collections per peer (n1/n2/n3)", arms, a -> a.collections().stream().map(String::valueOf)
            .collect(Collectors.joining("/")));
        row(sb, "longest GC pause (ms)", arms, a -> String.format(Locale.ROOT, "%.1f", a.longestPause()));
        row(sb, "answered by another server than the client's previous answer", arms,
            a -> Long.toString(a.load().moved().getTotalCount()));
        row(sb, "... their latency p50 / max (ms)", arms, a -> a.load().moved().getTotalCount() == 0 ? "-"
            : ms(a.load().moved(), 50) + " / " + ms(a.load().moved(), 100));
        row(sb, "allocation, busiest peer (MiB/s, GC log)", arms, a -> Double.isNaN(a.allocation()) ? "-"
            : String.format(Locale.ROOT, "%.1f", a.allocation()));
        return sb.toString();
    }

    /** @return the goals block: Blade's p99.99 against Epsilon's and G1's, and its elections; markdown */
    static String goals(List<ArmOutcome> arms) {
        ArmOutcome blade = find(arms, BLADE);
        ArmOutcome epsilon = find(arms, "epsilon");
        ArmOutcome g1 = find(arms, "g1");
        return "| goal | " + BLADE + " |\n|---|---|\n"
            + "| p99.99 <= 1.5 x epsilon's | " + ratio(blade, epsilon, 1.5) + " |\n"
            + "| p99.99 <= 0.1 x g1's | " + ratio(blade, g1, 0.1) + " |\n"
            + "| no elections caused by collections | " + (blade == null || blade.elections() < 0 ? "-"
                : blade.elections() + " elections: " + (blade.elections() == 0 ? "met" : "not met")) + " |\n";
    }

    private static ArmOutcome find(List<ArmOutcome> arms, String name) {
        return arms.stream().filter(a -> a.name().equals(name) && a.load() != null
            && a.load().latency().getTotalCount() > 0).findFirst().orElse(null);
    }

    private static String ratio(ArmOutcome arm, ArmOutcome reference, double limit) {
        if (arm == null || reference == null) {
            return "-";
        }
        double a = arm.load().latency().getValueAtPercentile(99.99) / 1000.0;
        double r = reference.load().latency().getValueAtPercentile(99.99) / 1000.0;
        return String.format(Locale.ROOT, "%.2f x (%.2f / %.2f ms): %s", a / r, a, r, a / r <= limit ? "met"
            : "not met");
    }

    private static void row(StringBuilder sb, String label, List<ArmOutcome> arms, Function<ArmOutcome, String> cell) {
        sb.append("| ").append(label).append(" |");
        arms.forEach(a -> sb.append(' ').append(a.load() == null ? "failed" : cell.apply(a)).append(" |"));
        sb.append('\n');
    }

    private static String ms(Histogram h, double percentile) {
        if (h.getTotalCount() == 0) {
            return "-";
        }
        long micros = percentile >= 100 ? h.getMaxValue() : h.getValueAtPercentile(percentile);
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }
}
