package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeapWatcherTest {
    private static final long MIB = 1 << 20;

    @Test
    void aFullCollectionComesDueAfterTheYoungCollectionsTheOldGenerationStillTakesWithTwoToSpare() {
        // 400 MiB of room, 45 MiB promoted per young collection: 8 fit, two are kept in reserve, so six more young
        // collections after the next one, every 700 ms
        assertThat(HeapWatcher.fullDueNanos(100_000_000L, 400 * MIB, 45 * MIB, 700e6))
            .isEqualTo(100_000_000L + 6 * 700_000_000L);
        assertThat(HeapWatcher.fullDueNanos(100_000_000L, 80 * MIB, 45 * MIB, 700e6))
            .as("no room for two: the next collection is the full one").isEqualTo(100_000_000L);
    }

    @Test
    void unknownWhenTheNextCollectionIsUnknownOrNoPeriodWasMeasured() {
        assertThat(HeapWatcher.fullDueNanos(Long.MAX_VALUE, 400 * MIB, 45 * MIB, 700e6)).isEqualTo(Long.MAX_VALUE);
        assertThat(HeapWatcher.fullDueNanos(100_000_000L, 400 * MIB, 45 * MIB, 0)).isEqualTo(Long.MAX_VALUE);
        assertThat(HeapWatcher.fullDueNanos(100_000_000L, Long.MAX_VALUE, 1, 1e12)).isEqualTo(Long.MAX_VALUE);
    }

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
    void aYoungCollectionWhoseLeadTakesMoreThanHalfOfEdensFillIsLeftToTheJvmAndSaysWhy() {
        long ms = 1_000_000L;
        assertThat(HeapWatcher.leaveReason(600 * ms, 10 * ms, 290 * ms, 0)).as("exactly half: planned").isNull();
        assertThat(HeapWatcher.leaveReason(600 * ms, 10 * ms, 150 * ms, 290 * ms))
            .as("a hand-off on top, within three quarters: planned").isNull();
        assertThat(HeapWatcher.leaveReason(600 * ms, 10 * ms, 300 * ms, 0))
            .isEqualTo("eden fills in 600 ms, and a planned collection needs 310 ms of it (the node 10 ms, waiting for"
                + " a grant 300 ms, preparing 0 ms): it would collect eden less than half full");
        assertThat(HeapWatcher.leaveReason(600 * ms, 10 * ms, 150 * ms, 300 * ms))
            .as("the hand-off takes it past three quarters").contains("preparing 300 ms");
        assertThat(HeapWatcher.leaveReason(60_000 * ms, 10 * ms, 0, Long.MAX_VALUE))
            .as("however long eden lasts").contains("no preparation pays now");
    }
}
