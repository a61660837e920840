package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.internal.MinuteSummary.Kind;
import org.junit.jupiter.api.Test;

class MinuteSummaryTest {
    private static final long MS = 1_000_000L;
    private static final long MINUTE = MinuteSummary.PERIOD_NANOS;

    @Test
    void theFirstFewCollectionsAreToldAtInfoThenNoMore() {
        MinuteSummary m = new MinuteSummary(0, 0);
        for (int i = 0; i < MinuteSummary.EVENTS_AT_INFO; i++) {
            assertThat(m.tellAtInfo()).isTrue();
        }
        assertThat(m.tellAtInfo()).isFalse();
        assertThat(m.tellAtInfo()).isFalse();
    }

    @Test
    void oneLinePerMinuteWithWhatHappenedInIt() {
        MinuteSummary m = new MinuteSummary(0, 7);
        for (int i = 1; i <= 100; i++) {
            m.drained(i * MS / 10); // 0.1 .. 10.0 ms
        }
        assertThat(m.collected(Kind.FORCED, 10_000 * MS, 9)).isNull();
        assertThat(m.collected(Kind.ESCAPED, 20_000 * MS, 9)).isNull();
        assertThat(m.collected(Kind.OTHER_CAUSE, 30_000 * MS, 9)).isNull();
        assertThat(m.collected(Kind.FORCED, MINUTE + 500 * MS, 57))
            .isEqualTo("Blade: in the last 61 s: collections 4 (2 forced, 1 escaped, 1 for another cause), "
                + "drain p99 9.9 ms, requests shed 50");
    }

    @Test
    void collectionsLeftToTheJvmAreToldApartFromEscapesOnlyWhenThereWereAny() {
        MinuteSummary m = new MinuteSummary(0, 0);
        assertThat(m.collected(Kind.LEFT_TO_JVM, 10_000 * MS, 0)).isNull();
        assertThat(m.collected(Kind.LEFT_TO_JVM, 20_000 * MS, 0)).isNull();
        assertThat(m.collected(Kind.ESCAPED, MINUTE, 0))
            .startsWith("Blade: in the last 60 s: collections 3 (0 forced, 2 left to the JVM, 1 escaped, 0 for another");
        assertThat(m.collected(Kind.FORCED, 2 * MINUTE, 0)).contains("(1 forced, 0 escaped, ");
    }

    @Test
    void theNextMinuteStartsFromNothing() {
        MinuteSummary m = new MinuteSummary(0, 0);
        m.drained(5 * MS);
        assertThat(m.collected(Kind.FORCED, MINUTE, 3)).contains("collections 1 ", "drain p99 5.0 ms", "requests shed 3");
        assertThat(m.collected(Kind.UNPLANNED, 2 * MINUTE, 3))
            .isEqualTo("Blade: in the last 60 s: collections 1 (0 forced, 0 escaped, 0 for another cause), "
                + "drain p99 - (no drain), requests shed 0");
    }

    @Test
    void drainsBeyondTheBoundAreLeftOutNotKept() {
        MinuteSummary m = new MinuteSummary(0, 0);
        for (int i = 0; i < MinuteSummary.MAX_DRAINS; i++) {
            m.drained(MS);
        }
        m.drained(1_000 * MS); // the bound is reached: not kept
        assertThat(m.collected(Kind.FORCED, MINUTE, 0)).contains("drain p99 1.0 ms");
    }
}
