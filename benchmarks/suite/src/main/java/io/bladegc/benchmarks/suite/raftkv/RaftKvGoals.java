package io.bladegc.benchmarks.suite.raftkv;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * The goals for the {@code raft-kv} scenarios, computed from the run (all repetitions of an arm together):
 * Epsilon's p99.99 at most {@value #EPSILON_P9999_MS} ms (the machine's floor); for each Blade arm that ran
 * ({@link #BLADE_ARMS}), in {@value RaftKvScenario#NAME} its p99.9 and p99.99 at most {@value #BLADE_OVER_G1} times
 * G1's (never worse than the collector alone), in {@value RaftKvScenario#HEAVY_NAME} (where G1's pauses matter) its
 * p99.99 at most {@value #HEAVY_OVER_G1} times G1's and {@value #HEAVY_OVER_EPSILON} times Epsilon's and what clients
 * felt of its hand-offs (the worst request around each) at most {@value #HAND_OFF_P50_MS} ms at the median and
 * {@value #HAND_OFF_MAX_MS} ms at worst, in {@value RaftKvScenario#COUNTER_NAME} (the service a Ratis user ran) its
 * p99.9 at most G1's and its hand-offs paying (what clients felt of them, the worst request around each, at the median
 * no more than the median pause they hid); in all no election that no hand-off explains (one a collection caused); no
 * failed client call in any arm; for every hand-off, no request around it timed out or failed and none took more than
 * twice its duration ({@link RaftKvHandoffs}). A goal whose arms did not run reads "-". When Epsilon misses its goal, a line tells what
 * the machine did meanwhile. Stateless.
 */
public final class RaftKvGoals {
    /** Blade for Raft on Parallel. */
    public static final String BLADE_PARALLEL = "blade-parallel";
    /** Blade for Raft on G1. */
    public static final String BLADE_G1 = "blade-g1";
    /** The arms the goals are about. */
    static final List<String> BLADE_ARMS = List.of(BLADE_PARALLEL, BLADE_G1);
    /** The floor: no collection at all. */
    static final String EPSILON = "epsilon";
    /** The usual collector. */
    public static final String G1 = "g1";
    /** The most Epsilon's p99.99 may be, ms. */
    static final double EPSILON_P9999_MS = 30;
    /** The most Blade's p99.9 and p99.99 may be, in multiples of G1's. */
    static final double BLADE_OVER_G1 = 1.1;
    /** The most Blade's p99.99 may be in the heavy workload, in multiples of G1's. */
    static final double HEAVY_OVER_G1 = 0.3;
    /** The most Blade's p99.99 may be in the heavy workload, in multiples of Epsilon's. */
    static final double HEAVY_OVER_EPSILON = 2;
    /** The most a hand-off may cost clients at the median in the heavy workload, ms. */
    static final double HAND_OFF_P50_MS = 25;
    /** The most a hand-off may cost clients at worst in the heavy workload, ms. */
    static final double HAND_OFF_MAX_MS = 45;
    /** The most Blade's p99.9 may be in the counter service, in multiples of G1's: never worse. */
    static final double COUNTER_OVER_G1 = 1.0;

    private RaftKvGoals() {
    }

    /**
     * @param arms  the arms' names, in table order
     * @param reps  every repetition of every arm
     * @param cores the machine's cores
     * @param scenario whose goals: {@value RaftKvScenario#NAME}'s, {@value RaftKvScenario#HEAVY_NAME}'s or
     *              {@value RaftKvScenario#COUNTER_NAME}'s
     * @return the goals table, markdown, and when Epsilon missed its goal the line on where its time went
     */
    static String markdown(List<String> arms, List<RaftKvRep> reps, int cores, String scenario) {
        Histogram epsilon = merged(reps, EPSILON);
        Histogram g1 = merged(reps, G1);
        StringBuilder sb = new StringBuilder("| goal | measured (all repetitions) | |\n|---|---|---|\n");
        double e = p9999Ms(epsilon);
        row(sb, String.format(Locale.ROOT, "%s's p99.99 <= %.0f ms", EPSILON, EPSILON_P9999_MS),
            Double.isNaN(e) ? "-" : String.format(Locale.ROOT, "%.2f ms", e), Double.isNaN(e) ? null
                : e <= EPSILON_P9999_MS);
        List<String> blades = arms.stream().filter(BLADE_ARMS::contains).toList();
        for (String blade : blades) {
            if (RaftKvScenario.COUNTER_NAME.equals(scenario)) {
                ratio(sb, blade, merged(reps, blade), G1, g1, 99.9, COUNTER_OVER_G1);
                handOffsPay(sb, blade, measured(reps, blade));
            } else if (RaftKvScenario.HEAVY_NAME.equals(scenario)) {
                ratio(sb, blade, merged(reps, blade), G1, g1, 99.99, HEAVY_OVER_G1);
                ratio(sb, blade, merged(reps, blade), EPSILON, epsilon, 99.99, HEAVY_OVER_EPSILON);
                double[] cost = RaftKvHandoffs.worstMillis(measured(reps, blade));
                row(sb, String.format(Locale.ROOT, "%s's hand-offs cost clients at most %.0f ms at the median, %.0f"
                        + " ms at worst", blade, HAND_OFF_P50_MS, HAND_OFF_MAX_MS), cost.length == 0 ? "no hand-off"
                        : RaftKvTable.medianAndMax(cost) + " ms over " + cost.length + " hand-off(s)",
                    cost.length == 0 ? null : cost[(cost.length - 1) / 2] <= HAND_OFF_P50_MS
                        && cost[cost.length - 1] <= HAND_OFF_MAX_MS);
            } else {
                ratio(sb, blade, merged(reps, blade), G1, g1, 99.9, BLADE_OVER_G1);
                ratio(sb, blade, merged(reps, blade), G1, g1, 99.99, BLADE_OVER_G1);
            }
        }
        List<String> ran = arms.stream().filter(a -> reps.stream().anyMatch(r -> r.arm().equals(a)
            && r.measured())).toList();
        row(sb, "zero failed client calls", ran.stream().map(a -> a + " " + failed(reps, a))
                .collect(Collectors.joining(", ")),
            ran.isEmpty() ? null : ran.stream().allMatch(a -> failed(reps, a) == 0));
        String others = ran.stream().filter(a -> !BLADE_ARMS.contains(a))
            .map(a -> a + " " + measured(reps, a).stream().mapToLong(RaftKvRep::elections).sum())
            .collect(Collectors.joining(", "));
        for (String blade : blades) {
            List<RaftKvRep> bladeReps = measured(reps, blade);
            long elections = bladeReps.stream().mapToLong(RaftKvRep::elections).sum();
            row(sb, "no election caused by a collection (" + blade + ")", bladeReps.isEmpty() ? "-"
                : elections + " election(s) outside hand-offs" + (others.isEmpty() ? "" : " (" + others + ")"),
                bladeReps.isEmpty() ? null : elections == 0);
        }
        List<RaftKvHandoffs.Row> rows = reps.stream().flatMap(r -> r.handoffRows().stream()).toList();
        long judged = rows.stream().filter(RaftKvHandoffs.Row::judged).count();
        long met = rows.stream().filter(RaftKvHandoffs.Row::met).count();
        row(sb, String.format(Locale.ROOT, "every hand-off: no timeout or failed call, worst latency <= %.0f x its"
                + " duration", RaftKvHandoffs.LIMIT_TIMES_DURATION), rows.isEmpty() ? "no hand-off"
                : met + " of " + judged + " hand-off(s)" + (rows.size() > judged ? " (" + (rows.size() - judged)
                    + " not judged: not completed, or no request due around it)" : ""),
            judged == 0 ? null : met == judged);
        if (!Double.isNaN(e) && e > EPSILON_P9999_MS) {
            sb.append('\n').append(whereTheTimeGoes(measured(reps, EPSILON), e, cores));
        }
        return sb.toString();
    }

    /**
     * @return one line: what the machine did during Epsilon's windows (the load generator's wake-ups, the cores
     *     busy and who used them, the send lag), for a p99.99 of {@code p9999Ms}
     */
    static String whereTheTimeGoes(List<RaftKvRep> epsilon, double p9999Ms, int cores) {
        List<RaftKvRep> used = epsilon.stream().filter(r -> r.usage() != null).toList();
        if (used.isEmpty()) {
            return String.format(Locale.ROOT, "Where %s's time goes: unknown (no reading of the machine during its"
                + " windows).%n", EPSILON);
        }
        Histogram late = new Histogram(3);
        used.forEach(r -> late.add(r.usage().jitter().overshoot()));
        double machine = used.stream().mapToDouble(r -> r.usage().machineCores()).average().orElse(0);
        double steal = used.stream().mapToDouble(r -> r.usage().stealCores()).average().orElse(0);
        double peers = used.stream().mapToDouble(r -> r.usage().peerCores()).average().orElse(0);
        double load = used.stream().mapToDouble(r -> r.usage().loadCores()).average().orElse(0);
        long lag = used.stream().mapToLong(r -> r.load().sendLag()).max().orElse(0);
        return String.format(Locale.ROOT, "Where %s's time goes (p99.99 %.2f ms, no collection at all): during its"
                + " windows a 1 ms sleep in the load generator woke up late by up to %.2f ms (p99.9 %.2f ms, p99.99"
                + " %.2f ms); %.2f of %d cores were busy on average (the peers %.2f, the load generator %.2f, anything"
                + " else %.2f; the hypervisor took %.2f more); the load generator sent up to %.2f ms late.%n",
            EPSILON, p9999Ms, late.getMaxValue() / 1000.0, late.getValueAtPercentile(99.9) / 1000.0,
            late.getValueAtPercentile(99.99) / 1000.0, machine, cores, peers, load,
            Math.max(0, machine - peers - load), steal, lag / 1000.0);
    }

    /**
     * The row on whether {@code blade}'s hand-offs paid: what clients felt of them (the worst request around each) at
     * the median no more than the median pause they hid (the old leader's, collected after the hand-off).
     */
    static void handOffsPay(StringBuilder sb, String blade, List<RaftKvRep> reps) {
        double[] cost = RaftKvHandoffs.worstMillis(reps);
        double[] hidden = reps.stream().flatMap(r -> r.changes().collections().stream())
            .filter(c -> c.role() == RaftKvLeadership.Role.LEADER_HANDED_OFF)
            .mapToDouble(RaftKvLeadership.Collection::pauseMillis).sorted().toArray();
        long inPlace = reps.stream().flatMap(r -> r.changes().collections().stream())
            .filter(c -> c.role() == RaftKvLeadership.Role.LEADER_IN_PLACE).count();
        String measured = cost.length == 0 ? "no hand-off (" + inPlace + " leader collection(s) in place)"
            : String.format(Locale.ROOT, "%d hand-off(s), felt %s ms (p50 / max), hiding pauses of %s ms; %d leader"
                + " collection(s) in place", cost.length, RaftKvTable.medianAndMax(cost),
                RaftKvTable.medianAndMax(hidden), inPlace);
        row(sb, blade + "'s hand-offs pay: felt at the median no longer than the pauses they hid", measured,
            cost.length == 0 ? Boolean.TRUE : hidden.length > 0 && cost[(cost.length - 1) / 2]
                <= hidden[(hidden.length - 1) / 2]);
    }

    private static void ratio(StringBuilder sb, String name, Histogram arm, String baseName, Histogram base,
                              double percentile, double limit) {
        double a = percentileMs(arm, percentile);
        double r = percentileMs(base, percentile);
        boolean known = !Double.isNaN(a) && !Double.isNaN(r);
        row(sb, String.format(Locale.ROOT, "%s's p%s <= %.1f x %s's", name, percentile == 99.9 ? "99.9" : "99.99",
                limit, baseName), known ? String.format(Locale.ROOT, "%.2f x (%.2f / %.2f ms)", a / r, a, r) : "-",
            known ? a / r <= limit : null);
    }

    private static void row(StringBuilder sb, String goal, String measured, Boolean met) {
        sb.append("| ").append(goal).append(" | ").append(measured).append(" | ")
            .append(met == null ? "-" : met ? "met" : "**not met**").append(" |\n");
    }

    private static List<RaftKvRep> measured(List<RaftKvRep> reps, String arm) {
        return reps.stream().filter(r -> r.arm().equals(arm) && r.measured()).toList();
    }

    private static Histogram merged(List<RaftKvRep> reps, String arm) {
        return RaftKvTable.merged(measured(reps, arm));
    }

    private static long failed(List<RaftKvRep> reps, String arm) {
        return measured(reps, arm).stream().mapToLong(r -> r.load().requests().all().failed()).sum();
    }

    private static double p9999Ms(Histogram h) {
        return percentileMs(h, 99.99);
    }

    private static double percentileMs(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
    }
}
