package io.bladegc.commandline;

import java.util.ArrayList;
import java.util.List;

/**
 * The problems {@link ToolCommand#options()} finds, collected so that the user hears of all of them at once. Its
 * messages have picocli's form for a bad value: {@code Invalid value for option '--port': '70000' is not an integer
 * in 0..65535}. Not thread-safe: one per parse.
 */
public final class UsageProblems {
    private final List<String> problems = new ArrayList<>();

    /**
     * Records a bad value unless {@code ok}.
     *
     * @param ok       whether the value is acceptable
     * @param option   the option, as the user writes it ({@code --port}), or a positional argument's label
     * @param value    the value given
     * @param expected what the option takes, after "is not" ({@code "a number in 0..1"})
     * @return {@code ok}
     */
    public boolean check(boolean ok, String option, Object value, String expected) {
        if (!ok) {
            String what = option.startsWith("-") ? "option" : "argument";
            problems.add("Invalid value for " + what + " '" + option + "': '" + value + "' is not " + expected);
        }
        return ok;
    }

    /**
     * Records {@code value} unless it lies in {@code min..max}.
     *
     * @return whether it does
     */
    public boolean inRange(String option, long value, long min, long max) {
        return check(value >= min && value <= max, option, value, "an integer in " + min + ".." + max);
    }

    /** @param problem a line of its own, naming the options at fault */
    public void add(String problem) {
        problems.add(problem);
    }

    /** @throws UsageException with every problem recorded, if any */
    public void throwIfAny() {
        if (!problems.isEmpty()) {
            throw new UsageException(problems);
        }
    }
}
