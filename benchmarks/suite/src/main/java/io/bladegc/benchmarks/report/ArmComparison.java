package io.bladegc.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BinaryOperator;
import java.util.function.ToLongFunction;

/**
 * What a demo run showed, computed from the run: Blade's p99.9 and maximum latency as a multiple of every other arm's,
 * and one plain sentence with those ratios, the failed requests, the 503s that reached the client and how many of
 * Blade's collections were forced inside a grant (or a drained window). Immutable; thread-safe.
 */
public final class ArmComparison {
    /**
     * One arm's figures.
     *
     * @param title      the arm's name as the table heads it
     * @param p999Micros the 99.9th percentile of the 2xx latencies, microseconds
     * @param maxMicros  the largest 2xx latency, microseconds
     * @param failed     requests that got no answer, an I/O error or a status other than 2xx and 503
     * @param shed       503s that reached the client
     * @param blade      whether Blade ran in this arm
     * @param forced     Blade's collections forced inside a grant or drained window (0 without Blade)
     * @param escaped    collections the JVM ran on its own while Blade was armed (0 without Blade)
     */
    public record Arm(String title, long p999Micros, long maxMicros, long failed, long shed, boolean blade,
                      long forced, long escaped) {
    }

    private final Arm blade;
    private final List<Arm> others = new ArrayList<>();
    private final List<Arm> arms;
    private final String inside;

    private ArmComparison(List<Arm> arms, String inside) {
        this.arms = List.copyOf(arms);
        this.inside = inside;
        Arm b = null;
        for (Arm a : arms) {
            if (a.blade() && b == null) {
                b = a;
            } else if (!a.blade()) {
                others.add(a);
            }
        }
        this.blade = b;
    }

    /**
     * @param arms   the arms in table order; the first with Blade is compared with every arm without
     * @param inside what Blade's forced collections ran inside, for the sentence: "a grant", "a drained window"
     */
    public static ArmComparison of(List<Arm> arms, String inside) {
        return new ArmComparison(arms, inside);
    }

    /**
     * @return two lines, Blade's p99.9 and maximum as a multiple of each other arm's; empty without a Blade arm and
     *     another arm
     */
    public String ratios() {
        if (blade == null || others.isEmpty()) {
            return "";
        }
        return "Blade's p99.9 as a multiple of " + String.join(", ", multiples(Arm::p999Micros, (t, r) -> t + " " + r))
            + "\nBlade's max as a multiple of   " + String.join(", ", multiples(Arm::maxMicros, (t, r) -> t + " " + r))
            + "\n";
    }

    /** @return one sentence saying what the run showed */
    public String sentence() {
        if (blade == null || others.isEmpty()) {
            return "No Blade arm ran beside another arm: nothing to compare.";
        }
        List<String> p999 = multiples(Arm::p999Micros, (t, r) -> r + " " + t + "'s");
        List<String> max = multiples(Arm::maxMicros, (t, r) -> r);
        long failed = 0;
        long shed = 0;
        for (Arm a : arms) {
            failed += a.failed();
            shed += a.shed();
        }
        long collections = blade.forced() + blade.escaped();
        String grants = collections == 0 ? "Blade forced no collection in its window"
            : String.format(Locale.ROOT, "%d of Blade's %d collections (%.0f %%) were forced inside %s",
                blade.forced(), collections, 100.0 * blade.forced() / collections, inside);
        return "In this run Blade's p99.9 was " + join(p999) + ", and its max " + join(max) + "; "
            + (failed == 0 ? "no request failed" : failed + " request" + (failed == 1 ? "" : "s") + " failed")
            + (shed == 0 ? " and no client saw a 503" : " and clients saw " + shed + " 503" + (shed == 1 ? "" : "s"))
            + "; " + grants + ".";
    }

    /**
     * @param label the text for one other arm, from its title and the ratio
     * @return Blade's {@code figure} as a multiple of each other arm's, labelled, in the arms' order
     */
    private List<String> multiples(ToLongFunction<Arm> figure, BinaryOperator<String> label) {
        List<String> out = new ArrayList<>();
        for (Arm o : others) {
            out.add(label.apply(o.title(), ratio(figure.applyAsLong(blade), figure.applyAsLong(o))));
        }
        return out;
    }

    private static String ratio(long blade, long other) {
        if (other <= 0) {
            return "-";
        }
        double r = (double) blade / other;
        return String.format(Locale.ROOT, r < 0.095 ? "%.3fx" : "%.2fx", r);
    }

    private static String join(List<String> parts) {
        if (parts.size() == 1) {
            return parts.get(0);
        }
        return String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.get(parts.size() - 1);
    }
}
