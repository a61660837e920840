package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class CallScheduleTest {
    @Test
    void callsAreDueEvenlyFromTheStartWithoutAddingUpRounding() {
        CallSchedule s = new CallSchedule(1_000, 3, Duration.ZERO, Duration.ofSeconds(1));
        // 1/3 s is 333,333,333.3 ns: each due time is rounded on its own, not the gap
        assertThat(s.due(0)).isEqualTo(1_000);
        assertThat(s.due(1)).isEqualTo(1_000 + 333_333_333);
        assertThat(s.due(2)).isEqualTo(1_000 + 666_666_666);
        assertThat(s.due(3_000)).isEqualTo(1_000 + 1_000_000_000_000L);
    }

    @Test
    void onlyCallsDueInTheWindowAreMeasured() {
        CallSchedule s = new CallSchedule(0, 600, Duration.ofSeconds(3), Duration.ofSeconds(6));
        assertThat(s.windowStart()).isEqualTo(3_000_000_000L);
        assertThat(s.end()).isEqualTo(9_000_000_000L);
        long issued = LongStream.iterate(0, i -> i + 1).takeWhile(i -> s.due(i) < s.end()).count();
        long measured = LongStream.range(0, issued).filter(i -> s.measured(s.due(i))).count();
        assertThat(issued).isEqualTo(5_400);
        assertThat(measured).isEqualTo(3_600);
        assertThat(s.measured(s.windowStart() - 1)).isFalse();
        assertThat(s.measured(s.windowStart())).isTrue();
        assertThat(s.measured(s.end())).isFalse();
    }

    @Test
    void aScheduleStartingNearTheClocksWrapStillOrdersItsTimes() {
        long start = Long.MAX_VALUE - 1_000_000_000L; // nanoTime may be anywhere, also near the wrap
        CallSchedule s = new CallSchedule(start, 100, Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertThat(s.measured(s.due(150))).isTrue();
        assertThat(s.measured(s.due(50))).isFalse();
    }

    @Test
    void theRateIsPositive() {
        assertThatThrownBy(() -> new CallSchedule(0, 0, Duration.ZERO, Duration.ofSeconds(1)))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
