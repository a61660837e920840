package io.bladegc.benchmarks.suite.harness;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The order a suite runs its arms in: every repetition runs all arms, odd repetitions in the given order, even ones
 * in reverse, so that no arm always runs first (cold machine) or last. Stateless.
 */
public final class InterleavedSchedule {
    /**
     * One arm in one repetition.
     *
     * @param rep the repetition, from 1
     * @param arm the arm
     */
    public record Slot(int rep, Arm arm) {
    }

    private InterleavedSchedule() {
    }

    /**
     * @param arms        the arms, in the first repetition's order
     * @param repetitions how many repetitions, at least 1
     * @return {@code repetitions x arms.size()} slots in running order
     */
    public static List<Slot> of(List<Arm> arms, int repetitions) {
        if (repetitions < 1) {
            throw new IllegalArgumentException("repetitions must be at least 1: " + repetitions);
        }
        List<Slot> out = new ArrayList<>();
        for (int rep = 1; rep <= repetitions; rep++) {
            List<Arm> order = new ArrayList<>(arms);
            if (rep % 2 == 0) {
                Collections.reverse(order);
            }
            for (Arm arm : order) {
                out.add(new Slot(rep, arm));
            }
        }
        return out;
    }
}
