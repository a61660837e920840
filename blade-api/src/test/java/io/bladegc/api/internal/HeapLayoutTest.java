package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.bladegc.api.collector.CollectorKind;
import org.junit.jupiter.api.Test;

class HeapLayoutTest {
    private static final long MB = 1 << 20;

    @Test
    void g1TargetTakesTheLockerExpansionOutOfEdensCommittedSize() {
        // JDK 17, 1 MiB regions, from a run: eden committed 100 MiB, 1 survivor region; the young maximum of 101
        // regions is a target of 96 plus ceil(4.8) = 5, so eden's target is 95 (where the pause began)
        assertEquals(95 * MB, HeapLayout.g1EdenTarget(100 * MB, MB, MB, 5));
        // a mixed phase's small young generation: 16 + 3 = 19 regions is a target of 18 plus ceil(0.9) = 1
        assertEquals(15 * MB, HeapLayout.g1EdenTarget(16 * MB, 3 * MB, MB, 5));
    }

    @Test
    void withoutTheFlagEdensCommittedSizeIsItsTarget() {
        assertEquals(101 * MB, HeapLayout.g1EdenTarget(101 * MB, 2 * MB, MB, 0));
        assertEquals(64 * MB, HeapLayout.g1EdenTarget(64 * MB + 123, 4 * MB, 4 * MB, 0));
    }

    @Test
    void neverBelowZero() {
        assertEquals(0, HeapLayout.g1EdenTarget(0, 0, MB, 5));
        assertEquals(0, HeapLayout.g1EdenTarget(MB, 3 * MB, MB, 50));
    }

    @Test
    void theRunningJvmIsClassified() {
        HeapLayout layout = HeapLayout.current();
        assertThat(layout.kind()).isNotEqualTo(CollectorKind.UNKNOWN);
        assertThat(layout.collectionCount()).isNotNegative();
    }
}
