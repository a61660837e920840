package io.bladegc.benchmarks.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.commandline.ToolRun;
import io.bladegc.commandline.ToolCommandLine;
import org.junit.jupiter.api.Test;

class CompatibilityCheckTest {
    @Test
    void theSecondsOfLoadAreTheOnlyArgument() {
        assertThat(ToolCommandLine.options(new CompatibilityCheck.Seconds())).isEqualTo(8.0);
        assertThat(ToolCommandLine.options(new CompatibilityCheck.Seconds(), "30")).isEqualTo(30.0);
        ToolRun.of(new CompatibilityCheck.Seconds(), "0")
            .isUsageError("CompatibilityCheck", "Invalid value for argument 'SECONDS': '0' is not a positive");
        ToolRun.of(new CompatibilityCheck.Seconds(), "soon")
            .isUsageError("CompatibilityCheck", "Invalid value for argument 'SECONDS': 'soon' is not a positive");
        ToolRun.of(new CompatibilityCheck.Seconds(), "30", "40")
            .isUsageError("CompatibilityCheck", "Unmatched argument");
        ToolRun.of(new CompatibilityCheck.Seconds(), "--help").isHelpOf("CompatibilityCheck", "[SECONDS]",
            "(default 8)");
    }
}
