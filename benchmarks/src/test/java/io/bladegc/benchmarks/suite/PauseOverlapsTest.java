package io.bladegc.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.cluster.ClusterObserver.Grant;
import io.bladegc.benchmarks.suite.PauseOverlaps.Pause;
import java.util.List;
import org.junit.jupiter.api.Test;

class PauseOverlapsTest {

    @Test
    void countsPausesOfDifferentBackendsAtOnceAndWhereTheLastBegan() {
        List<Pause> pauses = List.of(
            new Pause("n1", 1_000, 1_500), new Pause("n2", 1_400, 1_450), // overlap: n2 inside n1's full pause
            new Pause("n1", 1_450, 1_460), // the same backend: never an overlap with itself; overlaps nobody else
            new Pause("n3", 3_000, 3_020), new Pause("n2", 3_020, 3_040)); // touching, not overlapping
        PauseOverlaps o = PauseOverlaps.of(pauses, null);
        assertThat(o).isEqualTo(new PauseOverlaps(5, 1, 0, 2));
        assertThat(o.cell(false)).isEqualTo("overlaps 1, the last at pause 2 of 5");
        assertThat(PauseOverlaps.of(List.of(new Pause("n1", 0, 10)), null).cell(false))
            .isEqualTo("no overlap in 1 pauses");
    }

    @Test
    void anOverlapIsGrantedOnlyWhenBothPausesLieInsideGrantsOfTheirOwnBackends() {
        List<Pause> pauses = List.of(new Pause("n1", 1_000, 1_500), new Pause("n2", 1_400, 1_450),
            new Pause("n3", 5_000, 5_400), new Pause("n1", 5_100, 5_130));
        List<Grant> grants = List.of(new Grant("n1", 1, 990, 1_520), new Grant("n2", 2, 1_380, Long.MAX_VALUE),
            new Grant("n3", 3, 4_990, 5_420), new Grant("n2", 4, 5_050, 5_200)); // n1's second pause: n2's grant
        PauseOverlaps o = PauseOverlaps.of(pauses, grants);
        assertThat(o.overlaps()).isEqualTo(2);
        assertThat(o.ungranted()).as("n1 paused at 5.1 s with no grant of its own").isEqualTo(1);
        assertThat(o.cell(true)).isEqualTo("overlaps 2 (1 not granted), the last at pause 4 of 4");
    }
}
