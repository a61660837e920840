package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeapWatcherTest {
    @Test
    void samplesEveryIntervalWhileTheTriggerIsFarAndHalveTheRestAsItNears() {
        long interval = 5_000_000L;
        assertThat(HeapWatcher.nextSampleNanos(Long.MAX_VALUE, 30_000_000L, interval)).as("lead unknown")
            .isEqualTo(interval);
        assertThat(HeapWatcher.nextSampleNanos(200_000_000L, 30_000_000L, interval)).isEqualTo(interval);
        assertThat(HeapWatcher.nextSampleNanos(36_000_000L, 30_000_000L, interval)).isEqualTo(3_000_000L);
        assertThat(HeapWatcher.nextSampleNanos(31_000_000L, 30_000_000L, interval)).as("never below 1 ms")
            .isEqualTo(1_000_000L);
        assertThat(HeapWatcher.nextSampleNanos(10_000_000L, 30_000_000L, interval)).as("already past it")
            .isEqualTo(1_000_000L);
        assertThat(HeapWatcher.nextSampleNanos(36_000_000L, 30_000_000L, 500_000L))
            .as("an interval shorter than 1 ms is kept").isEqualTo(500_000L);
    }

    @Test
    void aYoungCollectionWhoseLeadOutlastsEdensWholeFillIsLeftToTheJvmAndSaysWhy() {
        long ms = 1_000_000L;
        assertThat(HeapWatcher.leaveReason(600 * ms, 10 * ms, 590 * ms)).as("exactly the fill: planned").isNull();
        assertThat(HeapWatcher.leaveReason(60 * ms, 80 * ms, 0)).as("a single node: no grant to wait for").isNull();
        assertThat(HeapWatcher.leaveReason(600 * ms, 10 * ms, 591 * ms))
            .isEqualTo("eden fills in 600 ms, and a planned collection needs 601 ms (the node 10 ms, waiting for a"
                + " grant 591 ms, the longest of the recent waits): more than eden lasts");
    }
}
