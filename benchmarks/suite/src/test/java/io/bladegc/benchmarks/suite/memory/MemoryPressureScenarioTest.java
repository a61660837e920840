package io.bladegc.benchmarks.suite.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.benchmarks.suite.http.ClusterRateSearch;
import java.nio.file.Path;
import java.util.List;
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
    void g1AloneAgainstCoordinatedBladeOnTheSameHeap() {
        List<Arm> arms = MemoryPressureScenario.arms(Path.of("java"), "260m");

        assertThat(arms).extracting(Arm::name).containsExactly("g1", "blade-parallel");
        assertThat(arms).extracting(Arm::blade).containsExactly(BladeMode.NONE, BladeMode.COORDINATED);
        assertThat(arms).allSatisfy(a -> assertThat(a.jvmFlags()).contains("-Xms260m", "-Xmx260m",
            "-XX:+ExitOnOutOfMemoryError").containsAll(BackendFlags.COMMON));
        assertThat(arms.get(1).jvmFlags()).contains("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy");
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
