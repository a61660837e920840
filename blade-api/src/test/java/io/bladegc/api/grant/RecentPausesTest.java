package io.bladegc.api.grant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.bladegc.api.Generation;
import org.junit.jupiter.api.Test;

/** Pauses at one instant unless the test is about time: the weights are then the counts' alone. */
class RecentPausesTest {
    @Test
    void aOneOffLongPauseAgesOutOfTheAgedLongestButNotOutOfTheLongest() {
        RecentPauses p = new RecentPauses();
        assertThat(p.agedLongest(Generation.YOUNG, 0.8)).as("none measured").isEqualTo(-1);
        p.add(Generation.YOUNG, 136_000_000, 0); // a start-up's promotion
        assertThat(p.agedLongest(Generation.YOUNG, 0.8)).as("the newest at full weight").isEqualTo(136_000_000);
        for (int i = 1; i <= 4; i++) {
            p.add(Generation.YOUNG, 20_000_000, 0);
            assertThat(p.agedLongest(Generation.YOUNG, 0.8)).as("after %d newer", i)
                .isEqualTo(Math.max(20_000_000, (long) (136_000_000 * Math.pow(0.8, i))));
        }
        assertThat(p.agedLongest(Generation.YOUNG, 0.8)).as("four newer pauses: 136 ms weighs 55.7 ms")
            .isLessThan(60_000_000);
        assertThat(p.longest(Generation.YOUNG)).isEqualTo(136_000_000);
        assertThat(p.agedLongest(Generation.OLD, 0.8)).as("generations apart").isEqualTo(-1);
    }

    @Test
    void theAgesFollowTheRingPastItsWindow() {
        RecentPauses p = new RecentPauses();
        for (int i = 0; i < 3 * RecentPauses.WINDOW + 5; i++) {
            p.add(Generation.YOUNG, 10_000_000, 0);
        }
        p.add(Generation.YOUNG, 50_000_000, 0);
        assertThat(p.agedLongest(Generation.YOUNG, 0.5)).as("the newest, at full weight").isEqualTo(50_000_000);
        p.add(Generation.YOUNG, 10_000_000, 0);
        assertThat(p.agedLongest(Generation.YOUNG, 0.5)).as("one newer: half").isEqualTo(25_000_000);
        assertThat(p.count(Generation.YOUNG)).isEqualTo(RecentPauses.WINDOW);
    }

    @Test
    void aStartUpsLongPausesWeighLittleInTheAgedDistributionOnceShortOnesFollow() {
        RecentPauses p = new RecentPauses();
        assertThat(p.agedQuantile(Generation.YOUNG, 0.75, 0.8)).as("none measured").isEqualTo(-1);
        for (int i = 0; i < 3; i++) {
            p.add(Generation.YOUNG, 100_000_000, 0); // the preload's promotions
        }
        for (int i = 0; i < 5; i++) {
            p.add(Generation.YOUNG, 20_000_000, 0);
        }
        assertThat(p.agedQuantile(Generation.YOUNG, 0.75, 1)).as("unaged: 6 of 8 at or under it")
            .isEqualTo(100_000_000);
        assertThat(p.agedQuantile(Generation.YOUNG, 0.75, 0.8))
            .as("aged: the five short ones weigh 3.36, the three long ones 0.80").isEqualTo(20_000_000);
        assertThat(p.agedQuantile(Generation.YOUNG, 1, 0.8)).as("the top of the distribution").isEqualTo(100_000_000);
        for (int i = 0; i < 3; i++) {
            p.add(Generation.YOUNG, 100_000_000, 0);
        }
        assertThat(p.agedQuantile(Generation.YOUNG, 0.75, 0.8)).as("long ones again, newest: they weigh most")
            .isEqualTo(100_000_000);
    }

    @Test
    void aPauseLongBeforeTheNewestWeighsLessButTheNewestWeighsFullyHoweverLate() {
        RecentPauses p = new RecentPauses();
        long second = 1_000_000_000L;
        p.add(Generation.YOUNG, 200_000_000, 0); // the preload's promotion
        p.add(Generation.YOUNG, 30_000_000, 2 * RecentPauses.HALF_LIFE_SECONDS * second);
        assertThat(p.agedLongest(Generation.YOUNG, 1)).as("two half-lives before the newest: a quarter")
            .isCloseTo(50_000_000L, within(1L));
        assertThat(p.agedLongest(Generation.YOUNG, 0.8)).as("and one newer pause: 0.8 of that")
            .isCloseTo(40_000_000L, within(1L));
        assertThat(p.agedQuantile(Generation.YOUNG, 0.75, 1)).as("the quarter-weight long one lies above p75")
            .isEqualTo(30_000_000);
        p.add(Generation.YOUNG, 150_000_000, 100 * RecentPauses.HALF_LIFE_SECONDS * second);
        assertThat(p.agedLongest(Generation.YOUNG, 0.8)).as("a long pause, the newest, however long after")
            .isEqualTo(150_000_000);
    }
}
