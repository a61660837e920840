package io.bladegc.benchmarks.suite.sweep;

import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.suite.harness.PauseOverlaps;
import io.bladegc.benchmarks.suite.harness.WindowBootstrap;
import io.bladegc.benchmarks.suite.sweep.LoadSweepScenario.ClosedWindow;
import io.bladegc.benchmarks.suite.sweep.LoadSweepScenario.OpenWindow;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * The {@code load-sweep} report, from the interleaved windows of every arm: the closed loop; per rate the pooled p99.9
 * of each arm with its {@link WindowBootstrap bootstrap interval}, and each Blade arm's ratio to G1's with its
 * interval and the share of its windows worse than G1's median window; recovery and steady state apart; collections,
 * escapes, overlaps and failures; the goals judged (a goal the interval does not decide says so). Stateless.
 */
final class LoadSweepTable {
    /** Up to this share of G1's saturation, Blade on G1 is held to {@link #LOW_LOAD_RATIO} of G1's p99.9. */
    static final int LOW_LOAD_PERCENT = 70;
    static final double LOW_LOAD_RATIO = 0.5;
    /** At most this share of a Blade arm's windows may be worse than G1's median window, at every rate. */
    static final double WORSE_WINDOWS = 0.10;
    static final double THROUGHPUT_RATIO = 0.97;
    static final double P = 99.9;
    /** The arms held to a ratio of G1's p99.9. */
    static final List<String> GOAL_ARMS = List.of("blade-g1", "blade-parallel");

    private LoadSweepTable() {
    }

    /**
     * @param arms       the arms, {@code g1} among them
     * @param saturation G1's calibrated saturation, requests per second: the rates are shares of it
     * @param percents   the open-loop rates as shares of it
     * @param closed     every closed-loop window
     * @param open       every open-loop window
     * @return markdown
     */
    static String markdown(List<String> arms, double saturation, List<Integer> percents, List<ClosedWindow> closed,
                           List<OpenWindow> open) {
        StringBuilder md = new StringBuilder();
        md.append(closedLoop(arms, closed));
        md.append(String.format(Locale.ROOT, "%nOpen loop after a saturating burst, rates as shares of G1's saturation"
            + " as calibrated (%.0f /s). p%.1f of all windows pooled, ms, with the 95 %% bootstrap interval over"
            + " windows (%d resamples); per Blade arm its ratio to G1 and how many of its windows were worse than G1's"
            + " median window:%n%n", saturation, P, WindowBootstrap.RESAMPLES));
        List<String> blades = arms.stream().filter(a -> !a.equals("g1")).toList();
        md.append("| share | rate (/s) | windows |");
        arms.forEach(a -> md.append(' ').append(a).append(" |"));
        blades.forEach(a -> md.append(' ').append(a).append(" / g1 | ").append(a).append(" worse |"));
        md.append("\n|---:|---:|---:|").append("---:|".repeat(arms.size() + 2 * blades.size())).append('\n');
        List<String> goals = new ArrayList<>();
        for (int p : percents) {
            md.append(String.format(Locale.ROOT, "| %d %% | %.0f | %d |", p, saturation * p / 100,
                windows(open, "g1", p, OpenWindow::all).size()));
            for (String a : arms) {
                md.append(' ').append(ms(WindowBootstrap.percentile(windows(open, a, p, OpenWindow::all), P)))
                    .append(" |");
            }
            for (String a : blades) {
                WindowBootstrap.Estimate r = WindowBootstrap.ratio(windows(open, a, p, OpenWindow::all),
                    windows(open, "g1", p, OpenWindow::all), P);
                long worse = worseThanMedian(open, a, p);
                int n = windows(open, a, p, OpenWindow::all).size();
                md.append(String.format(Locale.ROOT, " %.2fx [%.2f, %.2f] | %d of %d |", r.value(), r.low(), r.high(),
                    worse, n));
                if (GOAL_ARMS.contains(a)) {
                    goals.add(judge(a + " p" + P + " at most " + bound(a, p) + "x G1's at " + p + " %", r,
                        bound(a, p)));
                }
                if (worse > WORSE_WINDOWS * n) {
                    goals.add(String.format(Locale.ROOT, "- %s worse than G1's median window in at most %.0f %% of"
                        + " windows at %d %%: **not met** (%d of %d)", a, WORSE_WINDOWS * 100, p, worse, n));
                }
            }
            md.append('\n');
        }
        md.append(String.format(Locale.ROOT, "%nRecovery (the first %d s of each window) and steady state (the rest),"
            + " p%.1f pooled, ms:%n%n| share |", LoadSweepScenario.RECOVERY_SECONDS, P));
        arms.forEach(a -> md.append(' ').append(a).append(" recovery | ").append(a).append(" steady |"));
        md.append("\n|---:|").append("---:|".repeat(2 * arms.size())).append('\n');
        for (int p : percents) {
            md.append("| ").append(p).append(" % |");
            for (String a : arms) {
                md.append(' ').append(ms(WindowBootstrap.percentile(windows(open, a, p, OpenWindow::recovery), P)))
                    .append(" | ")
                    .append(ms(WindowBootstrap.percentile(windows(open, a, p, OpenWindow::steady), P))).append(" |");
            }
            md.append('\n');
        }
        md.append(collections(arms, percents, open));
        md.append("\nGoals, from this run (a ratio's goal is decided when its whole interval lies on one side):\n\n");
        goals.forEach(g -> md.append(g).append('\n'));
        md.append(closedGoals(closed));
        return md.toString();
    }

    private static String closedLoop(List<String> arms, List<ClosedWindow> closed) {
        StringBuilder md = new StringBuilder("Closed loop (wrk, " + LoadSweepScenario.CONNECTIONS + " connections),"
            + " per arm the mean over its windows and the lowest and highest window:\n\n| arm | windows | throughput"
            + " (/s) | / g1 | p99 (ms) | non-2xx, socket errors |\n|---|---:|---:|---:|---:|---|\n");
        double g1 = stats(closed, "g1", w -> w.result().requestsPerSecond()).getAverage();
        for (String a : arms) {
            List<ClosedWindow> ws = closed.stream().filter(w -> w.arm().equals(a)).toList();
            DoubleSummaryStatistics rate = stats(closed, a, w -> w.result().requestsPerSecond());
            DoubleSummaryStatistics p99 = stats(closed, a, w -> w.result().percentile(99));
            md.append(String.format(Locale.ROOT, "| %s | %d | %.0f (%.0f-%.0f) | %.3fx | %.1f (%.1f-%.1f) | %d, %d |%n",
                a, ws.size(), rate.getAverage(), rate.getMin(), rate.getMax(), rate.getAverage() / g1,
                p99.getAverage(), p99.getMin(), p99.getMax(), ws.stream().mapToLong(w -> w.result().non2xx()).sum(),
                ws.stream().mapToLong(w -> w.result().socketErrors()).sum()));
        }
        return md.toString();
    }

    private static String closedGoals(List<ClosedWindow> closed) {
        if (closed.stream().noneMatch(w -> w.arm().equals("blade-g1"))) {
            return "";
        }
        double throughput = stats(closed, "blade-g1", w -> w.result().requestsPerSecond()).getAverage()
            / stats(closed, "g1", w -> w.result().requestsPerSecond()).getAverage();
        double p99 = stats(closed, "blade-g1", w -> w.result().percentile(99)).getAverage();
        double g1p99 = stats(closed, "g1", w -> w.result().percentile(99)).getAverage();
        return String.format(Locale.ROOT, "- closed loop, blade-g1's mean throughput at least %.2fx G1's: %s (%.3fx)%n"
                + "- closed loop, blade-g1's mean p99 at most G1's: %s (%.1f against %.1f ms)%n", THROUGHPUT_RATIO,
            throughput >= THROUGHPUT_RATIO ? "**met**" : "**not met**", throughput, p99 <= g1p99 ? "**met**"
                : "**not met**", p99, g1p99);
    }

    /**
     * Per rate and arm, summed over its windows: collections (with Blade forced, left to the JVM because no grant
     * could come before eden filled, escaped, and asked for early on an invitation), grants beyond K, windows
     * the coordinator judged infeasible and windows in which it had stepped down (observing), pauses of two backends
     * at once not granted, the median window's {@link PauseOverlaps#lastOverlapAt} (how many collections until they were spread again after the burst), failed
     * requests, and the client's largest send lag.
     */
    private static String collections(List<String> arms, List<Integer> percents, List<OpenWindow> open) {
        StringBuilder md = new StringBuilder("\nCollections per rate and arm, summed over its windows (in step: the"
            + " median window's position of the last unplanned overlap, i.e. collections until the backends were"
            + " spread again after the burst; lag: the client's largest send lag, ms):\n\n| share | arm | collections"
            + " | beyond K | infeasible windows | observing windows | overlaps (not granted) | in step | failed"
            + " | lag |\n|---:|---|---|---:|---:|---:|---|---:|---:|---:|\n");
        for (int p : percents) {
            for (String a : arms) {
                List<OpenWindow> ws = open.stream().filter(w -> w.arm().equals(a) && w.percent() == p).toList();
                boolean blade = !ws.isEmpty() && ws.get(0).result().observer() != null;
                long pauses = 0;
                long forced = 0;
                long left = 0;
                long escaped = 0;
                long invited = 0;
                long beyondK = 0;
                long infeasible = 0;
                long observing = 0;
                long overlaps = 0;
                long ungranted = 0;
                long failed = 0;
                long lag = 0;
                List<Integer> inStep = new ArrayList<>();
                for (OpenWindow w : ws) {
                    ClusterArm.Result r = w.result();
                    PauseOverlaps o = PauseOverlaps.of(r);
                    pauses += o.pauses();
                    forced += LoadSweepScenario.counter(r, "node", "Forced");
                    left += LoadSweepScenario.counter(r, "node", "LeftToJvm");
                    escaped += LoadSweepScenario.counter(r, "node", "Escaped");
                    invited += LoadSweepScenario.counter(r, "coordination", "Invitations");
                    if (blade) {
                        beyondK += r.observer().dueGrants(r.windowStart());
                        infeasible += r.observer().infeasiblePolls(r.windowStart()) > 0 ? 1 : 0;
                        observing += r.observer().observingPolls(r.windowStart()) > 0 ? 1 : 0;
                    }
                    overlaps += o.overlaps();
                    ungranted += o.ungranted();
                    inStep.add(o.lastOverlapAt());
                    failed += LoadSweepScenario.failures(r.load());
                    lag = Math.max(lag, r.load().maxSendLagMicros());
                }
                inStep.sort(null);
                md.append(String.format(Locale.ROOT, "| %d %% | %s | %s | %s | %s | %s | %d (%d) | %d | %d | %.0f |%n",
                    p, a, blade ? pauses + ": forced " + forced + ", left " + left + ", escaped " + escaped + ", invited "
                        + invited
                        : "" + pauses,
                    blade ? "" + beyondK : "", blade ? "" + infeasible : "", blade ? "" + observing : "", overlaps,
                    ungranted,
                    inStep.isEmpty() ? 0 : inStep.get(inStep.size() / 2), failed, lag / 1000.0));
            }
        }
        return md.toString();
    }

    /** @return how many of {@code arm}'s windows at {@code percent} had a p99.9 above G1's median window's */
    private static long worseThanMedian(List<OpenWindow> open, String arm, int percent) {
        List<Long> g1 = new ArrayList<>(windows(open, "g1", percent, OpenWindow::all).stream()
            .map(h -> h.getValueAtPercentile(P)).toList());
        g1.sort(null);
        long median = g1.get(g1.size() / 2);
        return windows(open, arm, percent, OpenWindow::all).stream().filter(h -> h.getValueAtPercentile(P) > median)
            .count();
    }

    /** @return the ratio to G1's p99.9 that {@code arm} is held to at {@code percent} of G1's saturation */
    static double bound(String arm, int percent) {
        return arm.equals("blade-g1") && percent <= LOW_LOAD_PERCENT ? LOW_LOAD_RATIO : 1.0;
    }

    /**
     * @param arms     the arms, {@code g1} among them
     * @param percents the rates, as shares of G1's saturation
     * @param windows  an arm's windows so far at a rate: their 2xx latencies
     * @return the rates, of {@code percents}, at which some arm of {@link #GOAL_ARMS}'s ratio goal is not decided by
     *     its windows so far: more windows there may decide it
     */
    static List<Integer> undecided(List<String> arms, List<Integer> percents,
                                   BiFunction<String, Integer, List<Histogram>> windows) {
        List<Integer> out = new ArrayList<>();
        for (int p : percents) {
            List<Histogram> g1 = windows.apply("g1", p);
            if (arms.stream().filter(GOAL_ARMS::contains).anyMatch(a -> undecided(
                WindowBootstrap.ratio(windows.apply(a, p), g1, P), bound(a, p)))) {
                out.add(p);
            }
        }
        return out;
    }

    /** @return whether {@code r}'s interval spans {@code bound}, so that {@link #judge} finds it not decided */
    static boolean undecided(WindowBootstrap.Estimate r, double bound) {
        return r.low() <= bound && r.high() > bound;
    }

    /**
     * @return the goal's line: met or not met when the whole interval lies on one side of {@code bound}, else not
     *     decided, with the side the pooled value lies on
     */
    static String judge(String goal, WindowBootstrap.Estimate r, double bound) {
        String verdict = r.high() <= bound ? "**met**" : !undecided(r, bound) ? "**not met**"
            : "**not decided**, the pooled value " + (r.value() <= bound ? "within" : "beyond") + " the bound";
        return String.format(Locale.ROOT, "- %s: %s (%.2fx [%.2f, %.2f])", goal, verdict, r.value(), r.low(),
            r.high());
    }

    /** @return {@code part} of each of {@code arm}'s windows at {@code percent}, in the order run */
    static List<Histogram> windows(List<OpenWindow> open, String arm, int percent,
                                   Function<OpenWindow, Histogram> part) {
        return open.stream().filter(w -> w.arm().equals(arm) && w.percent() == percent).map(part).toList();
    }

    private static String ms(WindowBootstrap.Estimate e) {
        return String.format(Locale.ROOT, "%.1f [%.1f, %.1f]", e.value() / 1000, e.low() / 1000, e.high() / 1000);
    }

    /** @return {@code value} over {@code arm}'s closed-loop windows */
    private static DoubleSummaryStatistics stats(List<ClosedWindow> closed, String arm,
                                                 ToDoubleFunction<ClosedWindow> value) {
        return closed.stream().filter(w -> w.arm().equals(arm)).mapToDouble(value).summaryStatistics();
    }
}
