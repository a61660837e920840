package io.bladegc.api.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CollectorKindTest {

    @Test
    void recognisesEveryHotSpotCollectorByItsExactBeanNames() {
        assertThat(CollectorKind.of(List.of("Copy", "MarkSweepCompact"))).isEqualTo(CollectorKind.SERIAL);
        assertThat(CollectorKind.of(List.of("PS MarkSweep", "PS Scavenge"))).isEqualTo(CollectorKind.PARALLEL);
        assertThat(CollectorKind.of(List.of("G1 Young Generation", "G1 Old Generation")))
            .isEqualTo(CollectorKind.G1);
        assertThat(CollectorKind.of(List.of("G1 Young Generation", "G1 Concurrent GC", "G1 Old Generation")))
            .as("JDK 20+ adds the concurrent bean").isEqualTo(CollectorKind.G1);
        assertThat(CollectorKind.of(List.of("ZGC Cycles", "ZGC Pauses"))).isEqualTo(CollectorKind.ZGC);
        assertThat(CollectorKind.of(List.of("ZGC Minor Cycles", "ZGC Minor Pauses", "ZGC Major Cycles",
            "ZGC Major Pauses"))).isEqualTo(CollectorKind.ZGC_GENERATIONAL);
        assertThat(CollectorKind.of(List.of("Shenandoah Pauses", "Shenandoah Cycles")))
            .isEqualTo(CollectorKind.SHENANDOAH);
        assertThat(CollectorKind.of(List.of("Epsilon Heap"))).isEqualTo(CollectorKind.EPSILON);
    }

    @Test
    void anUnknownOrPartlyMatchingSetIsUnknownNotGuessed() {
        assertThat(CollectorKind.of(List.of("Copy"))).isEqualTo(CollectorKind.UNKNOWN);
        assertThat(CollectorKind.of(List.of("Copy", "MarkSweepCompact", "Mystery"))).isEqualTo(CollectorKind.UNKNOWN);
        assertThat(CollectorKind.of(List.of("G1 Young Generation (experimental)"))).isEqualTo(CollectorKind.UNKNOWN);
        assertThat(CollectorKind.of(List.of())).isEqualTo(CollectorKind.UNKNOWN);
        assertThat(CollectorKind.UNKNOWN.schedulable()).isFalse();
    }

    @Test
    void cyclesAreNotPausesAndOnlyReclaimingBeansCountAsCollections() {
        assertThat(CollectorKind.ZGC.isPauseBean("ZGC Cycles")).isFalse();
        assertThat(CollectorKind.ZGC.isPauseBean("ZGC Pauses")).isTrue();
        assertThat(CollectorKind.ZGC.isCollectionBean("ZGC Cycles")).isTrue();
        assertThat(CollectorKind.ZGC.isCollectionBean("ZGC Pauses")).isFalse();
        assertThat(CollectorKind.G1.isCollectionBean("G1 Concurrent GC")).isFalse();
        assertThat(CollectorKind.G1.isPauseBean("G1 Concurrent GC")).isTrue();
        assertThat(CollectorKind.PARALLEL.isOldBean("PS MarkSweep")).isTrue();
        assertThat(CollectorKind.PARALLEL.isOldBean("PS Scavenge")).isFalse();
    }
}
