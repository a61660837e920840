package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class WindowBootstrapTest {

    /** A window of 1,000 requests at 1 ms, with {@code slow} of them at {@code slowMicros}. */
    private static Histogram window(int slow, long slowMicros) {
        Histogram h = new Histogram(60_000_000, 3);
        h.recordValueWithCount(1_000, 1_000 - slow);
        if (slow > 0) {
            h.recordValueWithCount(slowMicros, slow);
        }
        return h;
    }

    @Test
    void poolsTheWindowsAndBracketsThePercentileBetweenItsBestAndWorstResamples() {
        List<Histogram> windows = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            windows.add(window(0, 0));
        }
        windows.add(window(5, 500_000)); // one window with a half-second stall: 5 of 8,000 requests, p99.9 pooled 1 ms
        WindowBootstrap.Estimate e = WindowBootstrap.percentile(windows, 99.9);
        assertThat(e.value()).isBetween(999.0, 1_001.0);
        assertThat(e.low()).isBetween(999.0, 1_001.0);
        assertThat(e.high()).as("resamples that draw the stalled window twice or more put p99.9 in the stall")
            .isGreaterThan(400_000);
    }

    @Test
    void theRatioOfTwoEqualArmsIsOneAndADifferentArmIsSeparatedFromIt() {
        List<Histogram> a = List.of(window(2, 10_000), window(2, 10_000), window(2, 10_000));
        List<Histogram> b = List.of(window(2, 10_000), window(2, 10_000), window(2, 10_000));
        assertThat(WindowBootstrap.ratio(a, b, 99.9)).isEqualTo(new WindowBootstrap.Estimate(1, 1, 1));
        List<Histogram> slow = List.of(window(5, 100_000), window(5, 100_000), window(5, 100_000));
        WindowBootstrap.Estimate r = WindowBootstrap.ratio(slow, a, 99.9);
        assertThat(r.value()).isBetween(9.9, 10.1);
        assertThat(r.low()).isGreaterThan(1);
    }

    @Test
    void theSameWindowsGiveTheSameInterval() {
        List<Histogram> windows = List.of(window(0, 0), window(3, 50_000), window(1, 20_000), window(0, 0));
        assertThat(WindowBootstrap.percentile(windows, 99.9)).isEqualTo(WindowBootstrap.percentile(windows, 99.9));
    }
}
