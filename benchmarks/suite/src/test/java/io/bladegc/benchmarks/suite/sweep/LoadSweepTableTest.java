package io.bladegc.benchmarks.suite.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.load.OpenLoopLoad;
import io.bladegc.benchmarks.suite.harness.WindowBootstrap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LoadSweepTableTest {
    @Test
    void aGoalIsMetOrNotOnlyWhenTheWholeIntervalLiesOnOneSide() {
        assertThat(LoadSweepTable.judge("g", new WindowBootstrap.Estimate(0.12, 0.08, 0.17), 0.5))
            .isEqualTo("- g: **met** (0.12x [0.08, 0.17])");
        assertThat(LoadSweepTable.judge("g", new WindowBootstrap.Estimate(1.15, 1.01, 2.11), 1.0))
            .isEqualTo("- g: **not met** (1.15x [1.01, 2.11])");
        assertThat(LoadSweepTable.judge("g", new WindowBootstrap.Estimate(0.30, 0.07, 0.87), 0.5))
            .isEqualTo("- g: **not decided**, the pooled value within the bound (0.30x [0.07, 0.87])");
        assertThat(LoadSweepTable.judge("g", new WindowBootstrap.Estimate(0.61, 0.45, 0.75), 0.5))
            .isEqualTo("- g: **not decided**, the pooled value beyond the bound (0.61x [0.45, 0.75])");
    }

    @Test
    void aGoalIsUndecidedExactlyWhenJudgeSaysNotDecided() {
        assertThat(LoadSweepTable.undecided(new WindowBootstrap.Estimate(0.30, 0.07, 0.87), 0.5)).isTrue();
        assertThat(LoadSweepTable.undecided(new WindowBootstrap.Estimate(0.61, 0.45, 0.75), 0.5)).isTrue();
        assertThat(LoadSweepTable.undecided(new WindowBootstrap.Estimate(0.12, 0.08, 0.50), 0.5)).isFalse();
        assertThat(LoadSweepTable.undecided(new WindowBootstrap.Estimate(1.15, 1.01, 2.11), 1.0)).isFalse();
        assertThat(LoadSweepTable.judge("g", new WindowBootstrap.Estimate(0.12, 0.08, 0.50), 0.5))
            .contains("**met**");
    }

    @Test
    void bladeOnG1IsHeldToHalfOfG1sTailUpToSeventyPercentEveryOtherBladeArmToG1s() {
        assertThat(LoadSweepTable.bound("blade-g1", 70)).isEqualTo(0.5);
        assertThat(LoadSweepTable.bound("blade-g1", 85)).isEqualTo(1.0);
        assertThat(LoadSweepTable.bound("blade-parallel", 25)).isEqualTo(1.0);
    }

    @Test
    void theRatesToRunAgainAreThoseWhereSomeBladeArmsIntervalSpansItsBound() {
        List<Histogram> g1 = windows(100, 100, 100, 100, 100, 100, 100, 100);
        Map<Integer, List<Histogram>> blade = Map.of(
            25, windows(10, 12, 9, 11, 10, 13, 10, 12), // all far under 0.5x: decided
            40, windows(10, 12, 9, 11, 90, 13, 10, 95), // two windows near G1's: the interval spans 0.5x
            85, windows(60, 70, 65, 62, 68, 61, 66, 64)); // under 1.0x, the bound above 70 %: decided
        assertThat(LoadSweepTable.undecided(List.of("g1", "blade-g1"), List.of(25, 40, 85),
            (arm, percent) -> arm.equals("g1") ? g1 : blade.get(percent))).containsExactly(40);
        assertThat(LoadSweepTable.undecided(List.of("g1", "parallel"), List.of(25, 40, 85),
            (arm, percent) -> arm.equals("g1") ? g1 : blade.get(percent))).as("an arm without a goal").isEmpty();
    }

    /** @return one window per value: 10,000 requests at that many milliseconds */
    private static List<Histogram> windows(long... millis) {
        List<Histogram> out = new ArrayList<>();
        for (long ms : millis) {
            Histogram h = new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
            h.recordValueWithCount(ms * 1000, 10_000);
            out.add(h);
        }
        return out;
    }
}
