package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.GcOutcome;
import io.bladegc.api.Generation;
import org.junit.jupiter.api.Test;

/** A forced collection under a deadline that has passed is not started, young or old. */
class GcTriggerDeadlineTest {
    @Test
    void pastItsDeadlineNothingIsForced() {
        HeapLayout layout = HeapLayout.current();
        GcTrigger trigger = new GcTrigger(layout);
        for (Generation g : Generation.values()) {
            long before = layout.collectionCount();
            try {
                assertThat(trigger.force(g, System.nanoTime() - 1)).as("%s", g).isEqualTo(GcOutcome.TOO_LATE);
            } finally {
                trigger.done();
            }
            assertThat(layout.collectionCount()).as("collections after a late %s forcing", g).isEqualTo(before);
        }
    }

    @Test
    void inTimeAYoungCollectionIsForced() {
        HeapLayout layout = HeapLayout.current();
        GcTrigger trigger = new GcTrigger(layout);
        long before = layout.collectionCount();
        try {
            assertThat(trigger.force(Generation.YOUNG, System.nanoTime() + 60_000_000_000L))
                .isEqualTo(GcOutcome.COLLECTED);
        } finally {
            trigger.done();
        }
        assertThat(layout.collectionCount()).isGreaterThan(before);
    }
}
