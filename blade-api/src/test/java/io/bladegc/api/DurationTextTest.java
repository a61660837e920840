package io.bladegc.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationTextTest {
    @Test
    void aNumberWithItsUnitOrIso8601() {
        assertThat(DurationText.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(DurationText.parse("0.5s")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("2 m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(DurationText.parse("1.0000000019s")).as("finer than a nanosecond is cut")
            .isEqualTo(Duration.ofNanos(1_000_000_001));
        assertThat(DurationText.parse("PT0.5S")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("99999999999999999999m")).as("too long for a Duration: longer than any range")
            .isEqualTo(Duration.ofSeconds(Long.MAX_VALUE));
    }

    @Test
    void eachMistakeIsNamed() {
        assertThatThrownBy(() -> DurationText.parse("250")).hasMessage("a duration needs a unit (ms, s or m), e.g."
            + " 250ms or 250s");
        assertThatThrownBy(() -> DurationText.parse("")).hasMessage("expected a duration such as 20ms or 1s");
        assertThatThrownBy(() -> DurationText.parse("2h")).hasMessage("expected a duration such as 20ms or 1s");
        assertThatThrownBy(() -> DurationText.parse("-5ms")).hasMessage("expected a duration such as 20ms or 1s");
        assertThatThrownBy(() -> DurationText.parse("PT5")).hasMessage("not an ISO-8601 duration, expected a"
            + " duration such as 20ms or 1s or PT0.5S");
    }
}
