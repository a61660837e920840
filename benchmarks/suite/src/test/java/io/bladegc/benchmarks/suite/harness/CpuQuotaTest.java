package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CpuQuotaTest {
    @Test
    void aQuotaIsTheCoresTimesThePeriodAndAtLeastAMillisecond() {
        assertThat(CpuQuota.quotaMicros(0.5)).isEqualTo(5_000);
        assertThat(CpuQuota.quotaMicros(2)).isEqualTo(20_000);
        assertThat(CpuQuota.quotaMicros(0.01)).isEqualTo(1_000);
        assertThat(CpuQuota.label(0.5)).isEqualTo("0.5 CPU");
        assertThat(CpuQuota.label(1)).isEqualTo("1 CPU");
        assertThatThrownBy(() -> CpuQuota.apply("x", 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A real busy process, held to a quarter of a core: it uses no more, and the group goes once it ended. */
    @Test
    void holdsABusyProcessToItsShareAndRemovesItsGroup() throws Exception {
        assumeTrue(Files.isWritable(Path.of("/sys/fs/cgroup/cpu/cgroup.procs"))
            || Files.isWritable(Path.of("/sys/fs/cgroup/cgroup.procs")), "needs root and a CPU control group");
        Process busy = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
        try {
            CpuQuota quota = CpuQuota.apply("test-" + busy.pid(), busy.pid(), 0.25);
            try {
                ProcessUsage before = ProcessUsage.of(busy.pid());
                long start = System.nanoTime();
                Thread.sleep(1_500);
                double seconds = (System.nanoTime() - start) / 1e9;
                double used = ProcessUsage.of(busy.pid()).since(before).cpuSeconds();
                // at most its quarter of a core, give or take /proc's 10 ms ticks (an upper bound: a busy machine
                // only gives it less)
                assertThat(used / seconds).isLessThan(0.32);
            } finally {
                busy.destroyForcibly();
                assertThat(busy.waitFor(10, TimeUnit.SECONDS)).isTrue();
                quota.close();
                quota.close(); // idempotent: the sweep's stop hook and its end may both close it
            }
            assertThat(Path.of("/sys/fs/cgroup/cpu/blade-bench-test-" + busy.pid())).doesNotExist();
            assertThat(Path.of("/sys/fs/cgroup/blade-bench-test-" + busy.pid())).doesNotExist();
        } finally {
            busy.destroyForcibly();
        }
    }
}
