package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DecayingMaxTest {
    @Test
    void takesALongerObservationAtOnceAndForgetsItBySixteenthsCappedAtTheCeiling() {
        DecayingMax m = new DecayingMax(1_600, 10_000);
        assertThat(m.value()).isEqualTo(1_600);
        m.observe(100);
        assertThat(m.value()).isEqualTo(1_500);
        m.observe(4_000);
        assertThat(m.value()).isEqualTo(4_000);
        m.observe(50_000);
        assertThat(m.value()).isEqualTo(10_000);
        for (int i = 0; i < 40; i++) {
            m.observe(100);
        }
        assertThat(m.value()).isBetween(100L, 1_000L);
    }
}
