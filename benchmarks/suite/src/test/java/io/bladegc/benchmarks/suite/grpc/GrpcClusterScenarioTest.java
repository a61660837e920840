package io.bladegc.benchmarks.suite.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GrpcClusterScenarioTest {
    private static final Path JAVA = Path.of("/usr/bin/java");

    @Test
    void g1AndBladeShareHttpClustersHeapAndOneGcThreadEpsilonHoldsTheWholeRun() {
        List<String> notes = new ArrayList<>();
        List<Arm> arms = GrpcClusterScenario.arms(JAVA, 600, Duration.ofSeconds(75), notes);

        assertThat(arms).extracting(Arm::name).containsExactly("g1", "blade-parallel", "epsilon");
        assertThat(arms).extracting(Arm::blade).containsExactly(BladeMode.NONE, BladeMode.COORDINATED,
            BladeMode.NONE);
        assertThat(arms.get(0).jvmFlags()).containsSubsequence("-XX:+UseG1GC", "-Xms1g", "-Xmx1g",
            "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1");
        assertThat(arms.get(1).jvmFlags()).containsSubsequence("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy",
            "-Xmn96m", "-Xms1g", "-Xmx1g", "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1");
        // 665 + 200/s x (96 + 8) KiB x (75 + 30) s x 1.5 / 1024 = 665 + 3198.6 = 3863.6 -> 3904 (61 x 64)
        assertThat(arms.get(2).jvmFlags()).contains("-XX:+UseEpsilonGC", "-Xms3904m", "-Xmx3904m",
            "-XX:+AlwaysPreTouch");
        assertThat(notes).containsExactly("epsilon: heap 3904 MiB per backend = 665 MiB + 200 req/s x (96 + 8 KiB)"
            + " per request x (75 s + 30 s) x 1.5");
    }

    @Test
    void eachBackendDoesHttpClustersWorkPerCall() {
        assertThat(GrpcClusterScenario.work(true)).containsExactly("32", "on", "384", "64", "64");
        assertThat(GrpcClusterScenario.work(false)).containsExactly("32", "off", "384", "64", "64");
    }

    @Test
    void quickWarmsUpLongerThanTheOtherScenarios() {
        SuiteOptions full = SuiteOptions.parse("grpc-cluster", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "out");
        SuiteOptions quick = SuiteOptions.parse("grpc-cluster", "--quick", "--agent-jar", "a.jar",
            "--coordinator-jar", "c.jar", "--out", "out");
        assertThat(GrpcClusterScenario.warmup(full)).isEqualTo(Duration.ofSeconds(15));
        assertThat(GrpcClusterScenario.measure(full)).isEqualTo(Duration.ofSeconds(60));
        assertThat(GrpcClusterScenario.warmup(quick)).isEqualTo(Duration.ofSeconds(10));
        assertThat(GrpcClusterScenario.measure(quick)).isEqualTo(Duration.ofSeconds(10));
        assertThat(GrpcClusterScenario.footer(quick)).contains("10 s warm-up, 10 s measured; 1 repetition(s)");
    }
}
