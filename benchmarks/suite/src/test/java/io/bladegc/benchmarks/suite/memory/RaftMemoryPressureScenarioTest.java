package io.bladegc.benchmarks.suite.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.JavaInstallation;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RaftMemoryPressureScenarioTest {
    @Test
    void theFootprintIsTheHeapAfterTheLastForcedFullCollection() {
        String log = """
            [1.002s][info][gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 120M->80M(2048M) 12.301ms
            [9.115s][info][gc] GC(7) Pause Full (System.gc()) 900M->455M(2048M) 812.552ms
            [9.200s][info][gc] GC(8) Pause Young (Normal) (G1 Evacuation Pause) 500M->470M(2048M) 20.000ms
            [12.31s][info][gc] GC(9) Pause Full (Diagnostic Command) 620M->431M(2048M) 640.100ms
            """;
        assertThat(RaftMemoryPressureScenario.afterFullCollection(log)).isEqualTo(431);
        assertThat(RaftMemoryPressureScenario.afterFullCollection("[0.1s][info][gc] Using G1")).isEqualTo(-1);
    }

    @Test
    void theArmsAreG1ZgcWhereThereIsANewerJdkAndBladeOnG1AndParallel() {
        Path java = Path.of("/jdk17/bin/java");
        JavaInstallation jdk25 = new JavaInstallation(Path.of("/jdk25/bin/java"), "25.0.1", 25);
        List<Arm> arms = RaftMemoryPressureScenario.arms(java, Optional.of(jdk25), "800m", "200m");
        assertThat(arms).extracting(Arm::name).containsExactly("g1", "genzgc", "blade-g1", "blade-parallel");
        assertThat(arms.get(1).java()).isEqualTo(jdk25.java());
        assertThat(arms.get(1).jvmFlags()).contains("-XX:+UseZGC", "-Xmx800m", "-XX:+ExitOnOutOfMemoryError")
            .doesNotContain("-XX:+ZGenerational"); // the only ZGC from JDK 23 on
        assertThat(arms.get(3).jvmFlags()).contains("-XX:+UseParallelGC", "-Xms800m", "-Xmn200m");
        assertThat(arms.get(2).blade()).isEqualTo(BladeMode.GCI);
        assertThat(RaftMemoryPressureScenario.arms(java, Optional.empty(), "800m", "200m")).extracting(Arm::name)
            .containsExactly("g1", "blade-g1", "blade-parallel");
    }
}
