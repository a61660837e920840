package io.bladegc.benchmarks.suite.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.SuiteOptions;
import org.junit.jupiter.api.Test;

class LoadSweepScenarioTest {
    @Test
    void theFooterNamesTheExtraRoundsOnlyWhereThereCanBeAny() {
        SuiteOptions full = SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "out");
        SuiteOptions quick = SuiteOptions.parse("load-sweep", "--quick", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out");
        assertThat(LoadSweepScenario.footer(full)).contains("8 round(s)", "then up to 16 in all at the rates where");
        assertThat(LoadSweepScenario.footer(quick)).contains("1 round(s), the arms' order rotated by one each round."
            + " Per round").doesNotContain("in all at the rates");
    }
}
