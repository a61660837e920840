package io.bladegc.benchmarks.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.commandline.ToolRun;
import io.bladegc.commandline.ToolCommandLine;
import org.junit.jupiter.api.Test;

class CoordinatorBenchTest {
    @Test
    void defaultsAndLists() {
        CoordinatorBench.Settings d = ToolCommandLine.options(new CoordinatorBench.Settings());
        assertThat(d.jar).isEqualTo("coordinator/target/blade-coordinator.jar");
        assertThat(d.connections).containsExactly(1, 2, 4, 8, 16);
        assertThat(d.warmupSecondsOrDefault()).isEqualTo(5);
        CoordinatorBench.Settings s = ToolCommandLine.options(new CoordinatorBench.Settings(), "--mode", "throughput",
            "--connections", "16", "--seconds", "4", "--server-jvm-opts", "-Xmx512m", "--idle-members", "10000");
        assertThat(s.connections).containsExactly(16);
        assertThat(s.warmupSecondsOrDefault()).as("a quarter of --seconds, at least 2").isEqualTo(2);
        assertThat(s.serverOpts).isEqualTo("-Xmx512m");
        assertThat(s.idleMembers).isEqualTo(10_000);
    }

    @Test
    void helpAndUsageErrorsAreTheSharedOnes() {
        ToolRun.of(new CoordinatorBench.Settings(), "--mode", "latncy", "--cycles", "many").isUsageError(
            "CoordinatorBench", "Invalid value for option '--cycles': 'many' is not an int");
        ToolRun.of(new CoordinatorBench.Settings(), "--mode", "latncy").isUsageError("CoordinatorBench",
            "Invalid value for option '--mode': 'latncy' is not one of all, latency, throughput, memory");
        ToolRun.of(new CoordinatorBench.Settings(), "--help").isHelpOf("CoordinatorBench", "--jar=JAR",
            "--connections=N[,N...]", "(default 1,2,4,8,16)", "--server-jvm-opts=OPTIONS");
    }
}
