package io.bladegc.api.grant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecentLongestTest {
    @Test
    void theInitialValueUntilTheFirstThenTheLongestOfTheWindow() {
        RecentLongest r = new RecentLongest(3, 500);
        assertThat(r.longest()).isEqualTo(500);
        r.add(40);
        assertThat(r.longest()).as("the initial value is a guess, forgotten at the first value").isEqualTo(40);
        r.add(300);
        r.add(20);
        r.add(30);
        assertThat(r.longest()).isEqualTo(300);
        r.add(10);
        assertThat(r.longest()).as("the 300 fell out of the window of three").isEqualTo(30);
    }
}
