package io.bladegc.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ArmComparison}: the ratios and the sentence follow the figures given, never a fixed text. */
class ArmComparisonTest {
    private static final ArmComparison.Arm G1 = new ArmComparison.Arm("G1 alone", 91_000, 180_000, 0, 0, false, 0, 0);
    private static final ArmComparison.Arm PARALLEL =
        new ArmComparison.Arm("Parallel alone", 778_000, 1_500_000, 0, 0, false, 0, 0);

    @Test
    void bladeIsComparedWithEveryOtherArm() {
        ArmComparison c = ArmComparison.of(List.of(G1, PARALLEL,
            new ArmComparison.Arm("Blade", 8_300, 30_000, 0, 0, true, 49, 1)), "a grant");
        assertThat(c.ratios()).isEqualTo("Blade's p99.9 as a multiple of G1 alone 0.091x, Parallel alone 0.011x\n"
            + "Blade's max as a multiple of   G1 alone 0.17x, Parallel alone 0.020x\n");
        assertThat(c.sentence()).isEqualTo("In this run Blade's p99.9 was 0.091x G1 alone's and 0.011x Parallel"
            + " alone's, and its max 0.17x and 0.020x; no request failed and no client saw a 503; 49 of Blade's 50"
            + " collections (98 %) were forced inside a grant.");
    }

    @Test
    void failuresShedRequestsAndAWorseBladeAreSaidAsTheyAre() {
        ArmComparison c = ArmComparison.of(List.of(new ArmComparison.Arm("Blade", 120_000, 900_000, 2, 1, true, 0,
            0), G1), "a drained window");
        assertThat(c.sentence()).isEqualTo("In this run Blade's p99.9 was 1.32x G1 alone's, and its max 5.00x; 2"
            + " requests failed and clients saw 1 503; Blade forced no collection in its window.");
    }

    @Test
    void withoutABladeArmThereIsNothingToCompare() {
        ArmComparison c = ArmComparison.of(List.of(G1, PARALLEL), "a grant");
        assertThat(c.ratios()).isEmpty();
        assertThat(c.sentence()).startsWith("No Blade arm ran");
    }
}
