package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcessUsageTest {
    @Test
    void parsesCpuTicksAfterACommandWithSpacesAndThePeakRss() {
        String stat = "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 30 0 99 0 0";
        String status = "Name:\tjava\nVmPeak:\t  900000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t  100000 kB\n";
        ProcessUsage u = ProcessUsage.parse(stat, status);
        assertThat(u.cpuSeconds()).isEqualTo(18.01); // (1234 + 567) ticks / 100
        assertThat(u.peakRssKib()).isEqualTo(123456);
        assertThat(u.since(new ProcessUsage(8.01, 1)).cpuSeconds()).isEqualTo(10.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void readsThisProcessAndCpuGrowsWithWork() throws Exception {
        long pid = ProcessHandle.current().pid();
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        ProcessUsage before = ProcessUsage.of(pid);
        long threadBefore = threads.getCurrentThreadCpuTime();
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - threadBefore < 300_000_000L) { // 300 ms of this thread's CPU
            x += Long.numberOfTrailingZeros(x + System.nanoTime());
        }
        double threadSeconds = (threads.getCurrentThreadCpuTime() - threadBefore) / 1e9;
        ProcessUsage after = ProcessUsage.of(pid);
        assertThat(x).isNotNegative();
        // the process used at least what this thread did, give or take /proc's 10 ms ticks
        assertThat(after.since(before).cpuSeconds()).isGreaterThanOrEqualTo(threadSeconds - 0.02);
        assertThat(after.peakRssKib()).isGreaterThan(10_000);
    }
}
