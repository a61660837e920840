package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.cluster.ClusterObserver.Grant;
import io.bladegc.benchmarks.suite.harness.PauseOverlaps.Pause;
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
        List<Pause> pauses = List.of(new Pause("n3", 1_000, 1_400), new Pause("n1", 1_100, 1_130),
            new Pause("n1", 5_000, 5_500), new Pause("n2", 5_400, 5_450));
        List<Grant> grants = List.of(new Grant("n3", 1, 990, 1_420), new Grant("n2", 2, 1_050, 1_200),
            new Grant("n1", 3, 4_990, 5_520), new Grant("n2", 4, 5_380, Long.MAX_VALUE)); // n2's grant still open
        PauseOverlaps o = PauseOverlaps.of(pauses, grants);
        assertThat(o.overlaps()).isEqualTo(2);
        assertThat(o.ungranted()).as("n1 paused at 1.1 s under n2's grant, none of its own").isEqualTo(1);
        assertThat(o.lastOverlapAt()).as("the later overlap was granted: the coordinator's choice").isEqualTo(2);
        assertThat(o.cell(true)).isEqualTo("overlaps 2 (1 not granted, the last at pause 2 of 4)");
        assertThat(PauseOverlaps.of(pauses.subList(2, 4), grants).cell(true)).isEqualTo("overlaps 1 (0 not granted)");
    }
}
