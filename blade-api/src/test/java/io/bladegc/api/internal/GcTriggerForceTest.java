package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.GcOutcome;
import io.bladegc.api.Generation;
import org.junit.jupiter.api.Test;

/**
 * A forced collection under a deadline that has passed is not started, young or old; nor is one the JVM's own
 * collection overtook.
 */
class GcTriggerForceTest {
    @Test
    void pastItsDeadlineNothingIsForced() {
        HeapLayout layout = HeapLayout.current();
        GcTrigger trigger = new GcTrigger(layout);
        for (Generation g : Generation.values()) {
            long before = layout.collectionCount();
            try {
                assertThat(trigger.force(g, System.nanoTime() - 1, before)).as("%s", g).isEqualTo(GcOutcome.TOO_LATE);
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
            assertThat(trigger.force(Generation.YOUNG, System.nanoTime() + 60_000_000_000L, before))
                .isEqualTo(GcOutcome.COLLECTED);
        } finally {
            trigger.done();
        }
        assertThat(layout.collectionCount()).isGreaterThan(before);
    }

    /**
     * The JVM collected on its own after the caller decided to collect and before the forcing began (G1's preventive
     * collections come early): filling eden then would run a second collection of an eden the filling alone filled.
     */
    @Test
    void aCollectionTheJvmRanAfterTheCallerDecidedEndsTheForcingUnstarted() {
        HeapLayout layout = HeapLayout.current();
        GcTrigger trigger = new GcTrigger(layout);
        long seen = layout.collectionCount();
        System.gc(); // the JVM's own collection, for this test
        long after = layout.collectionCount();
        assertThat(after).as("System.gc() collected").isGreaterThan(seen);
        for (Generation g : Generation.values()) {
            try {
                assertThat(trigger.force(g, System.nanoTime() + 60_000_000_000L, seen)).as("%s", g)
                    .isEqualTo(GcOutcome.ALREADY_COLLECTED);
            } finally {
                trigger.done();
            }
            assertThat(layout.collectionCount()).as("collections after an overtaken %s forcing", g).isEqualTo(after);
            assertThat(trigger.forcingEpoch() & 1).as("no forcing window left open").isZero();
        }
    }
}
