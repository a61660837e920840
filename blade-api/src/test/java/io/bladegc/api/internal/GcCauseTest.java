package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GcCauseTest {
    @ParameterizedTest
    @CsvSource({
        "Allocation Failure, EDEN_FULL",
        "G1 Evacuation Pause, EDEN_FULL",
        "Ergonomics, HEAP",
        "G1 Compaction Pause, HEAP",
        "a cause of a future JDK, HEAP",
        "System.gc(), EXPLICIT",
        "Diagnostic Command, EXPLICIT",
        "Metadata GC Threshold, OTHER",
        "GCLocker Initiated GC, OTHER",
        "Heap Dump Initiated GC, OTHER",
        "Heap Inspection Initiated GC, OTHER",
        "JvmtiEnv ForceGarbageCollection, OTHER",
        "G1 Humongous Allocation, OTHER",
        "G1 Preventive Collection, HEAP",
        "G1 Periodic Collection, OTHER",
    })
    void eachCauseHasItsKind(String cause, GcCause kind) {
        assertThat(GcCause.of(cause)).isEqualTo(kind);
    }

    @ParameterizedTest
    @CsvSource({"Metadata GC Threshold, false", "Allocation Failure, false", "System.gc(), true"})
    void onlyAskedForCollectionsAreExplicit(String cause, boolean explicit) {
        assertThat(new GcEvents.Collection("b", 1, cause, 0, 1, true, true, io.bladegc.api.Generation.YOUNG,
            0, 0, 0).explicit()).isEqualTo(explicit);
    }
}
