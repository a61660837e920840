package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.load.Wrk;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code load-sweep} report: the closed-loop table, the open-loop sweep, and the goals judged from them (Blade's
 * p99.9 at most G1's at every rate and at most 0.2x G1's up to 70 % of saturation; under 5 % of Blade's collections
 * escaped up to 70 %; two backends paused at once only under grants; closed loop, Blade's throughput at least 0.97x
 * G1's and its p99 at most G1's). Stateless.
 */
final class LoadSweepTable {
    /** Up to this share of G1's saturation, Blade is held to {@link #LOW_LOAD_RATIO} of G1's p99.9. */
    static final int LOW_LOAD_PERCENT = 70;
    static final double LOW_LOAD_RATIO = 0.2;
    static final double ESCAPED_SHARE = 0.05;
    static final double THROUGHPUT_RATIO = 0.97;

    private LoadSweepTable() {
    }

    /**
     * @param sweeps     what each arm measured, G1's ({@code g1}) and Blade's ({@code blade-parallel}) among them
     * @param saturation G1's closed-loop throughput, requests per second
     * @param percents   the open-loop rates as shares of it
     * @return markdown
     */
    static String markdown(List<LoadSweepScenario.ArmSweep> sweeps, double saturation, List<Integer> percents) {
        LoadSweepScenario.ArmSweep g1 = find(sweeps, "g1");
        LoadSweepScenario.ArmSweep blade = find(sweeps, "blade-parallel");
        StringBuilder md = new StringBuilder("Closed loop (wrk, " + LoadSweepScenario.CONNECTIONS
            + " connections):\n\n| | G1 | Blade |\n|---|---:|---:|\n");
        md.append(row("throughput (/s)", "%.0f", g1.closed().requestsPerSecond(), blade.closed().requestsPerSecond()));
        for (int p : List.of(50, 75, 90, 99)) {
            md.append(row("p" + p + " (ms)", "%.2f", g1.closed().percentile(p), blade.closed().percentile(p)));
        }
        md.append(row("max (ms)", "%.2f", g1.closed().maxMillis(), blade.closed().maxMillis()));
        md.append(row("non-2xx, socket errors", "%s", errors(g1.closed()), errors(blade.closed())));
        md.append(String.format(Locale.ROOT, "%nOpen loop after a saturating warm-up, rates as a share of G1's"
            + " closed-loop throughput (%.0f /s):%n%n| share | rate (/s) | G1 p99.9 (ms) | Blade p99.9 (ms)"
            + " | Blade / G1 | G1 max (ms) | Blade max (ms) | G1 | Blade | failed requests G1, Blade |%n"
            + "|---:|---:|---:|---:|---:|---:|---:|---|---|---|%n", saturation));
        List<String> misses = new ArrayList<>();
        List<String> lowMisses = new ArrayList<>();
        List<String> escapeMisses = new ArrayList<>();
        List<String> ungranted = new ArrayList<>();
        for (int p : percents) {
            ClusterArm.Result g = g1.open().get(p);
            ClusterArm.Result b = blade.open().get(p);
            double g999 = g.load().okPercentileMicros(99.9) / 1000.0;
            double b999 = b.load().okPercentileMicros(99.9) / 1000.0;
            md.append(String.format(Locale.ROOT, "| %d %% | %.0f | %.2f | %.2f | %.2fx | %.2f | %.2f | %s | %s |"
                    + " %d, %d |%n", p, saturation * p / 100, g999, b999, b999 / g999,
                g.load().okLatency().getMaxValue() / 1000.0, b.load().okLatency().getMaxValue() / 1000.0,
                LoadSweepScenario.collections(g), LoadSweepScenario.collections(b),
                LoadSweepScenario.failures(g.load()), LoadSweepScenario.failures(b.load())));
            if (b999 > g999) {
                misses.add(p + " %");
            }
            int notGranted = PauseOverlaps.of(b).ungranted();
            if (notGranted > 0) {
                ungranted.add(p + " % (" + notGranted + ")");
            }
            if (p <= LOW_LOAD_PERCENT) {
                if (b999 > LOW_LOAD_RATIO * g999) {
                    lowMisses.add(String.format(Locale.ROOT, "%d %% (%.2fx)", p, b999 / g999));
                }
                long forced = LoadSweepScenario.counter(b, "Forced");
                long escaped = LoadSweepScenario.counter(b, "Escaped");
                if (escaped >= ESCAPED_SHARE * (forced + escaped) && escaped > 0) {
                    escapeMisses.add(p + " % (" + escaped + " of " + (forced + escaped) + ")");
                }
            }
        }
        double throughput = blade.closed().requestsPerSecond() / g1.closed().requestsPerSecond();
        md.append("\nGoals, from this run:\n\n")
            .append(goal("Blade's p99.9 at most G1's at every rate", misses))
            .append(goal("Blade's p99.9 at most " + LOW_LOAD_RATIO + "x G1's up to " + LOW_LOAD_PERCENT + " %",
                lowMisses))
            .append(goal("under " + Math.round(ESCAPED_SHARE * 100) + " % of Blade's collections escaped up to "
                + LOW_LOAD_PERCENT + " %", escapeMisses))
            .append(goal("Blade's backends paused two at once only under the coordinator's grants, at every rate",
                ungranted))
            .append(String.format(Locale.ROOT, "- closed loop, Blade's throughput at least %.2fx G1's: %s (%.3fx)%n",
                THROUGHPUT_RATIO, throughput >= THROUGHPUT_RATIO ? "**met**" : "**not met**", throughput))
            .append(String.format(Locale.ROOT, "- closed loop, Blade's p99 at most G1's: %s (%.2f against %.2f ms)%n",
                blade.closed().percentile(99) <= g1.closed().percentile(99) ? "**met**" : "**not met**",
                blade.closed().percentile(99), g1.closed().percentile(99)));
        return md.toString();
    }

    private static String goal(String what, List<String> misses) {
        return "- " + what + ": " + (misses.isEmpty() ? "**met**" : "**not met** at " + String.join(", ", misses))
            + "\n";
    }

    private static String errors(Wrk.Result r) {
        return r.non2xx() + ", " + r.socketErrors();
    }

    private static String row(String label, String format, Object g1, Object blade) {
        return "| " + label + " | " + String.format(Locale.ROOT, format, g1) + " | "
            + String.format(Locale.ROOT, format, blade) + " |\n";
    }

    private static LoadSweepScenario.ArmSweep find(List<LoadSweepScenario.ArmSweep> sweeps, String arm) {
        return sweeps.stream().filter(s -> s.arm().equals(arm)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no sweep of arm " + arm));
    }
}
