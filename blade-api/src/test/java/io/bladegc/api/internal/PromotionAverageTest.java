package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PromotionAverageTest {
    private static final long MIB = 1 << 20;

    @Test
    void aSteadyPromotionIsItsOwnPaddedAverage() {
        PromotionAverage a = new PromotionAverage(10, 3);
        assertThat(a.padded()).as("no young collection yet").isZero();
        for (int i = 0; i < 30; i++) {
            a.sample(10 * MIB);
        }
        assertThat(a.padded()).isEqualTo(10 * MIB);
    }

    @Test
    void theFirstSamplesWeighOneThenAHalfThenAThird() {
        PromotionAverage a = new PromotionAverage(10, 0);
        a.sample(30 * MIB);
        assertThat(a.padded()).as("the first sample is the average").isEqualTo(30 * MIB);
        a.sample(10 * MIB);
        assertThat(a.padded()).as("half of each").isEqualTo(20 * MIB);
        a.sample(50 * MIB);
        // weight 100/3 = 33 percent: 0.67 * 20 + 0.33 * 50
        assertThat((double) a.padded()).isCloseTo(29.9 * MIB, within(1.0));
    }

    @Test
    void aBurstRaisesThePaddedAverageFarAboveTheAverageAsParallelKeepsIt() {
        PromotionAverage a = new PromotionAverage(10, 3);
        for (int i = 0; i < 200; i++) {
            a.sample(10 * MIB);
        }
        a.sample(60 * MIB);
        // average 0.9 * 10 + 0.1 * 60 = 15; deviation 0.1 * |60 - 15| = 4.5; padded 15 + 3 * 4.5 = 28.5 MiB
        assertThat((double) a.padded()).isCloseTo(28.5 * MIB, within(1.0));
        a.sample(10 * MIB);
        // average 14.5, deviation 0.9 * 4.5 + 0.1 * 4.5 = 4.5: still 28 MiB
        assertThat((double) a.padded()).isCloseTo(28 * MIB, within(1.0));
        for (int i = 0; i < 8; i++) {
            a.sample(10 * MIB);
        }
        // nine young collections after the burst the average is 11.9 MiB, and Parallel still keeps 22.4 MiB (the
        // deviation follows each sample's distance from the average, 1.9 MiB, slowly)
        assertThat((double) a.padded()).isCloseTo(22.4 * MIB, within(0.1 * MIB));
    }

    @Test
    void aYoungCollectionThatPromotedNothingLowersTheAverageButNotTheDeviation() {
        PromotionAverage a = new PromotionAverage(50, 1);
        a.sample(10 * MIB);
        a.sample(10 * MIB);
        a.sample(30 * MIB); // average 20, deviation 0.5 * 10 = 5
        assertThat(a.padded()).isEqualTo(25 * MIB);
        a.sample(0); // average 10, deviation still 5
        assertThat(a.padded()).isEqualTo(15 * MIB);
    }
}
