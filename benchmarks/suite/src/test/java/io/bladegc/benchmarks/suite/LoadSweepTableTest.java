package io.bladegc.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

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
}
