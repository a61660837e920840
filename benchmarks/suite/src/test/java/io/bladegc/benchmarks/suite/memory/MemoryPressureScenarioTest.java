package io.bladegc.benchmarks.suite.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.EpsilonHeap;
import io.bladegc.benchmarks.suite.harness.JavaInstallation;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.benchmarks.suite.http.ClusterRateSearch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MemoryPressureScenarioTest {
    @Test
    void theClusterWorkloadWithASmallerLiveSet() {
        assertThat(MemoryPressureScenario.WORKLOAD).containsSubsequence("--live-mb", "96")
            .containsSubsequence("--object-bytes", "64");
        assertThat(MemoryPressureScenario.WORKLOAD).hasSameSizeAs(Workload.CACHE_CHURN.args());
        assertThatThrownBy(() -> MemoryPressureScenario.withLiveSet(List.of("--churn-kb", "4"), 8))
            .hasMessageContaining("no --live-mb");
    }

    @Test
    void heapIsTheRatioTimesTheFootprintRoundedUp() {
        long footprint = 130L * 1024 * 1024 + 1;
        assertThat(MemoryPressureScenario.heapMib(8, footprint)).isEqualTo(1041);
        assertThat(MemoryPressureScenario.heapMib(1.25, footprint)).isEqualTo(163);
    }

    @Test
    void theCollectorsAUserWouldPickInsteadBesideBladeOnTheSameHeap() {
        JavaInstallation jdk25 = new JavaInstallation(Path.of("/jdk25/bin/java"), "25.0.1", 25);
        List<String> notes = new ArrayList<>();
        List<Arm> arms = MemoryPressureScenario.arms(Path.of("java"), Optional.of(jdk25), "260m", notes);

        assertThat(arms).extracting(Arm::name).containsExactly("g1", "parallel", "blade-g1", "blade-parallel",
            "genzgc", "shenandoah", "blade-g1-jdk25");
        assertThat(arms).extracting(Arm::blade).containsExactly(BladeMode.NONE, BladeMode.NONE, BladeMode.COORDINATED,
            BladeMode.COORDINATED, BladeMode.NONE, BladeMode.NONE, BladeMode.COORDINATED);
        assertThat(arms).allSatisfy(a -> assertThat(a.jvmFlags()).contains("-Xms260m", "-Xmx260m",
            "-XX:+ExitOnOutOfMemoryError").containsAll(BackendFlags.COMMON));
        assertThat(arms.get(3).jvmFlags()).contains("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy");
        assertThat(arms.subList(4, 7)).extracting(Arm::java).containsOnly(Path.of("/jdk25/bin/java"));
        assertThat(arms.get(4).jvmFlags()).contains("-XX:+UseZGC").doesNotContain("-XX:+ZGenerational");
        assertThat(arms.get(5).jvmFlags()).contains("-XX:+UseShenandoahGC", "-XX:ShenandoahGCMode=generational");
        assertThat(arms.get(6).jvmFlags()).contains("-XX:+UseG1GC");
        assertThat(notes).isEmpty();
    }

    @Test
    void withoutANewerJdkTheConcurrentCollectorsAreSkippedAndSaidSo() {
        List<String> notes = new ArrayList<>();
        JavaInstallation jdk21 = new JavaInstallation(Path.of("/jdk21/bin/java"), "21.0.5", 21);

        assertThat(MemoryPressureScenario.arms(Path.of("java"), Optional.empty(), "260m", notes))
            .extracting(Arm::name).containsExactly("g1", "parallel", "blade-g1", "blade-parallel");
        assertThat(notes).containsExactly("genzgc, shenandoah and Blade on the newer JDK: skipped, no JDK 21 or newer"
            + " found");
        List<Arm> on21 = MemoryPressureScenario.arms(Path.of("java"), Optional.of(jdk21), "260m", new ArrayList<>());
        assertThat(on21.get(4).jvmFlags()).contains("-XX:+UseZGC", "-XX:+ZGenerational");
        assertThat(on21.get(5).jvmFlags()).contains("-XX:+UseShenandoahGC")
            .noneMatch(f -> f.startsWith("-XX:ShenandoahGCMode"));
        assertThat(on21.get(6).name()).isEqualTo("blade-g1-jdk21");
    }

    @Test
    void epsilonRunsOneWindowAtTheStartingRateWithAHeapForIt() {
        SuiteOptions o = SuiteOptions.parse("memory-pressure", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "out", "--rate", "600");

        RateSearch s = MemoryPressureScenario.epsilonSearch(o);
        assertThat(s.maxProbes()).isEqualTo(1);
        assertThat(s.startRate()).isEqualTo(600);
        EpsilonHeap heap = MemoryPressureScenario.epsilonHeap(o);
        assertThat(heap.ratePerBackend()).isEqualTo(200);
        assertThat(heap.runTime()).isEqualTo(o.warmup().plus(MemoryPressureScenario.window(o)));
        assertThat(heap.baseMib()).isEqualTo(128 + 96 * 14 / 10);
    }

    @Test
    void quickSearchesFewerWindowsFromTheGivenRate() {
        SuiteOptions quick = SuiteOptions.parse("memory-pressure", "--quick", "--agent-jar", "a.jar",
            "--coordinator-jar", "c.jar", "--out", "out", "--rate", "400");
        RateSearch s = MemoryPressureScenario.search(quick);
        assertThat(s.startRate()).isEqualTo(400);
        assertThat(s.maxProbes()).isEqualTo(5);
        assertThat(s.targetMicros()).isEqualTo(10_000);
        assertThat(s.maxErrors()).isZero();
    }

    @Test
    void aBackendsFailureIsReadFromItsOutputOutOfMemoryFirst() {
        String bind = "INFO: starting\njava.io.IOException: Failed to bind to 0.0.0.0/0.0.0.0:4242\n"
            + "\tat org.eclipse.jetty.server.Server.doStart(Server.java:576)\n"
            + "Caused by: java.net.BindException: Address already in use\n\tat sun.nio.ch.Net.bind0(Native Method)\n";
        assertThat(ClusterRateSearch.failureIn(bind)).hasValue("java.net.BindException: Address already in use");
        assertThat(ClusterRateSearch.failureIn("LISTENING 4242\nTerminating due to java.lang.OutOfMemoryError:"
            + " Java heap space\n")).hasValue("Terminating due to java.lang.OutOfMemoryError: Java heap space");
        assertThat(ClusterRateSearch.failureIn("Exception in thread \"main\" java.lang.IllegalStateException: x\n"
            + "\tat Foo.main(Foo.java:1)\n"))
            .hasValue("Exception in thread \"main\" java.lang.IllegalStateException: x");
        assertThat(ClusterRateSearch.failureIn("LISTENING 4242\ndemo: live set 96 MiB\n")).isEmpty();
    }
}
