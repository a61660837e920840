package io.bladegc.benchmarks.suite.single;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class SingleNodeScenarioTest {
    private static final Path JAVA = Path.of("/jdk17/bin/java");

    @Test
    void theFilterOffAndOnOnParallelAndG1WithTheClusterScenariosHeap() {
        List<Arm> arms = SingleNodeScenario.arms(JAVA);

        assertThat(arms).extracting(Arm::name).containsExactly("parallel", "gci-parallel", "g1", "gci-g1");
        assertThat(arms).extracting(Arm::blade).containsExactly(BladeMode.NONE, BladeMode.GCI, BladeMode.NONE,
            BladeMode.GCI);
        assertThat(arms.get(0).jvmFlags()).isEqualTo(arms.get(1).jvmFlags())
            .startsWith("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy", "-Xms1g", "-Xmx1g")
            .containsAll(BackendFlags.COMMON);
        assertThat(arms.get(2).jvmFlags()).isEqualTo(arms.get(3).jvmFlags()).startsWith("-XX:+UseG1GC", "-Xms1g");
    }

    @Test
    void theAgentInSingleNodeModeOnlyWhereTheFilterIsOn() {
        List<Arm> arms = SingleNodeScenario.arms(JAVA);
        Path logs = Path.of("/tmp/logs");

        List<String> gci = arms.get(1).serverFlags(Path.of("agent.jar"), logs);
        assertThat(gci.get(0)).isEqualTo("-javaagent:agent.jar");
        assertThat(gci).last().isEqualTo("-Xlog:gc*:file=/tmp/logs/gc-%p.log:time,uptime,level,tags");
        assertThat(arms.get(0).serverFlags(Path.of("agent.jar"), logs))
            .noneMatch(f -> f.startsWith("-javaagent"));
    }
}
