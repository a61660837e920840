package io.bladegc.benchmarks.suite.http;

import static io.bladegc.benchmarks.suite.SuiteOptions.DEFAULT_HEAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.EpsilonHeap;
import io.bladegc.benchmarks.suite.harness.JavaInstallation;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HttpClusterScenarioTest {
    private static final Path JAVA17 = Path.of("/jdk17/bin/java");

    @Test
    void withoutANewerJdkTheConcurrentCollectorsAreSkippedWithANote() {
        List<String> notes = new ArrayList<>();
        List<Arm> arms = HttpClusterScenario.arms(JAVA17, Optional.empty(), DEFAULT_HEAP, 1, Workload.CACHE_CHURN, 600,
            Duration.ofSeconds(75), notes);
        assertThat(arms).extracting(Arm::name).containsExactly("g1", "parallel", "serial", "blade-parallel",
            "blade-g1", "gci-parallel", "epsilon");
        assertThat(arms).allSatisfy(a -> assertThat(a.java()).isEqualTo(JAVA17));
        assertThat(notes).anySatisfy(n -> assertThat(n)
            .contains("genzgc, shenandoah, genzgc-x2, shenandoah-x2: skipped"));
        assertThat(arms).filteredOn(a -> a.name().startsWith("blade")).extracting(Arm::blade)
            .containsOnly(BladeMode.COORDINATED);
        assertThat(arms.get(5).blade()).isEqualTo(BladeMode.GCI);
        assertThat(arms.get(6).jvmFlags()).contains("-XX:+UseEpsilonGC").noneMatch(f -> f.startsWith("-Xmn"));
    }

    @Test
    void everyArmRunsTheGcThreadsItIsGivenOnce() {
        List<Arm> arms = HttpClusterScenario.arms(JAVA17, Optional.empty(), DEFAULT_HEAP, 2, Workload.CACHE_CHURN, 600,
            Duration.ofSeconds(75), new ArrayList<>());
        assertThat(arms).allSatisfy(a -> assertThat(a.jvmFlags()).filteredOn(f -> f.startsWith("-XX:ParallelGCThreads"))
            .containsExactly("-XX:ParallelGCThreads=2"));
    }

    @Test
    void aNewerJdkAddsGenerationalZgcAndShenandoahOnItOnTheSameHeapAndOnTwiceIt() {
        Path java25 = Path.of("/jdk25/bin/java");
        JavaInstallation jdk25 = new JavaInstallation(java25, "25.0.3", 25);
        List<String> notes = new ArrayList<>();
        List<Arm> arms = HttpClusterScenario.arms(JAVA17, Optional.of(jdk25), DEFAULT_HEAP, 1, Workload.CACHE_CHURN,
            600, Duration.ofSeconds(75), notes);
        assertThat(arms).extracting(Arm::name).endsWith("epsilon", "genzgc", "shenandoah", "genzgc-x2",
            "shenandoah-x2");
        Arm zgc = arms.get(7);
        assertThat(zgc.java()).isEqualTo(java25);
        assertThat(zgc.jvmFlags()).contains("-XX:+UseZGC", "-Xmx1g").doesNotContain("-XX:+ZGenerational")
            .noneMatch(f -> f.startsWith("-Xmn"));
        assertThat(arms.get(8).jvmFlags()).contains("-XX:+UseShenandoahGC", "-Xmx1g");
        assertThat(arms.get(9).jvmFlags()).contains("-XX:+UseZGC", "-Xms2g", "-Xmx2g").doesNotContain("-Xmx1g");
        assertThat(arms.get(10).jvmFlags()).contains("-XX:+UseShenandoahGC", "-Xms2g", "-Xmx2g");
        assertThat(arms.get(9).description()).contains("2g heap (twice the other arms')");
        assertThat(arms.get(7).description()).contains("1g heap, no Blade");
        assertThat(notes).noneMatch(n -> n.contains("skipped"));

        List<Arm> on21 = HttpClusterScenario.arms(JAVA17, Optional.of(new JavaInstallation(java25, "21.0.5", 21)),
            "768m", 1, Workload.CACHE_CHURN, 600, Duration.ofSeconds(75), new ArrayList<>());
        assertThat(on21.get(7).jvmFlags()).contains("-XX:+UseZGC", "-XX:+ZGenerational", "-Xmx768m");
        assertThat(on21.get(9).jvmFlags()).contains("-Xmx1536m");
    }

    @Test
    void epsilonsHeapHoldsEverythingTheRunAllocatesWithAMargin() {
        int base = HttpClusterScenario.EPSILON_BASE_MIB;
        // base 128 + 384 x 1.4 = 665; + 200/s x (72 + 8) KiB x (75 + 30) s x 1.5 / 1024 = 665 + 2460.9 = 3125.9
        // -> 3136 (49 x 64)
        assertThat(new EpsilonHeap(base, 200, 72, Duration.ofSeconds(75)).mib()).isEqualTo(3136);
        // 665 + 200 x 80 x 42 x 1.5 / 1024 = 665 + 984.4 = 1649.4 -> 1664 (26 x 64)
        assertThat(new EpsilonHeap(base, 200, 72, Duration.ofSeconds(12)).mib()).isEqualTo(1664);
        // twice the rate: 665 + 4921.9 = 5586.9 -> 5632 (88 x 64)
        assertThat(new EpsilonHeap(base, 400, 72, Duration.ofSeconds(75)).mib()).isEqualTo(5632);
        List<String> notes = new ArrayList<>();
        List<Arm> arms = HttpClusterScenario.arms(JAVA17, Optional.empty(), DEFAULT_HEAP, 1, Workload.CACHE_CHURN, 600,
            Duration.ofSeconds(75), notes);
        // the workload's 32 + 64 KiB: 665 + 200 x 104 x 105 x 1.5 / 1024 = 665 + 3199.2 = 3864.2 -> 3904 (61 x 64)
        assertThat(arms.get(6).jvmFlags()).contains("-Xms3904m", "-Xmx3904m");
        assertThat(notes).anySatisfy(n -> assertThat(n).startsWith("epsilon: heap 3904 MiB per backend"));
    }

    @Test
    void theArmBecomesAClusterSpecPerBladeMode() {
        List<Arm> arms = HttpClusterScenario.arms(JAVA17, Optional.empty(), DEFAULT_HEAP, 1, Workload.CACHE_CHURN, 600,
            Duration.ofSeconds(12), new ArrayList<>());
        var jars = new io.bladegc.benchmarks.cluster.ClusterSpec.BladeParts(Path.of("agent.jar"), Path.of("coord.jar"));
        Path logs = Path.of("/tmp/logs");
        var g1 = arms.get(0).clusterSpec(3, List.of("--live-mb", "64"), "cp", Path.of("haproxy"), jars, logs);
        assertThat(g1.blade()).isNull();
        assertThat(g1.demoArgs()).containsExactly("--live-mb", "64", "--blade", "off");
        assertThat(g1.backendJvmFlags()).noneMatch(f -> f.startsWith("-javaagent")).last().asString()
            .startsWith("-Xlog:gc*:file=/tmp/logs/");
        var blade = arms.get(3).clusterSpec(3, List.of(), "cp", Path.of("haproxy"), jars, logs);
        assertThat(blade.blade()).isEqualTo(jars);
        assertThat(blade.demoArgs()).containsExactly("--blade", "on");
        assertThat(blade.backendJvmFlags()).noneMatch(f -> f.startsWith("-javaagent")); // the cluster adds it
        var gci = arms.get(5).clusterSpec(3, List.of(), "cp", Path.of("haproxy"), jars, logs);
        assertThat(gci.blade()).isNull();
        assertThat(gci.demoArgs()).containsExactly("--blade", "on");
        assertThat(gci.backendJvmFlags().get(0)).isEqualTo("-javaagent:agent.jar");
    }

    @Test
    void theCapacitySearchIsHeldToP999UnderTenMillisecondsWithNoErrorAllowed() {
        SuiteOptions full = SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "o", "--rate", "600");
        SuiteOptions quick = SuiteOptions.parse("http-cluster", "--quick", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "o");
        RateSearch s = HttpClusterScenario.capacitySearch(full);
        assertThat(s.passes(new RateSearch.Probe(900, 9_999, 0))).isTrue();
        assertThat(s.passes(new RateSearch.Probe(900, 10_000, 0))).isFalse();
        assertThat(s.passes(new RateSearch.Probe(900, 2_000, 1))).isFalse();
        assertThat(s.startRate()).isEqualTo(600);
        assertThat(s.maxProbes()).isEqualTo(7);
        assertThat(HttpClusterScenario.capacitySearch(quick).maxProbes()).isEqualTo(2);
        assertThat(HttpClusterScenario.capacityWindow(full)).hasSeconds(20);
        assertThat(HttpClusterScenario.CAPACITY_ARMS).containsExactly("g1", "blade-parallel");
    }

    @Test
    void armsCanBeChosenByNameAndKeepTheScenariosOrder() {
        List<Arm> all = HttpClusterScenario.arms(JAVA17, Optional.empty(), DEFAULT_HEAP, 1, Workload.CACHE_CHURN, 600,
            Duration.ofSeconds(75), new java.util.ArrayList<>());
        assertThat(Arm.select(all, List.of("epsilon", "g1", "blade-g1")).stream().map(Arm::name))
            .containsExactly("g1", "blade-g1", "epsilon");
        assertThat(Arm.select(all, List.of())).isEqualTo(all);
        assertThatThrownBy(() -> Arm.select(all, List.of("genzgc")))
            .hasMessageStartingWith("no arm genzgc here; arms: g1,parallel,serial,");
    }
}
