package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateSearchTest {
    /** p99 under 10 ms; start 600/s, x1.5, 50..20,000/s, 12 probes, within 10 %. */
    private static RateSearch search(int maxProbes) {
        return new RateSearch(10_000, 0, 600, 1.5, 50, 20_000, maxProbes, 1.1);
    }

    /** A service whose latency is 10 ms at {@code capacity} per second and grows with the rate, no errors. */
    private static RateSearch.Measurement capacity(double capacity) {
        return rate -> new RateSearch.Probe(rate, Math.round(10_000 * rate / capacity), 0);
    }

    private static List<Double> rates(RateSearch.Result r) {
        return r.probes().stream().map(RateSearch.Probe::rate).toList();
    }

    @Test
    void risesGeometricallyThenBisectsToWithinTheResolution() {
        RateSearch.Result r = search(12).run(capacity(1000));

        // 600 and 900 pass, 1350 fails; then the midpoints: 1125 fails, 1012.5 fails, 956.25 passes (and is within
        // 10 % of 1012.5, so the search ends)
        assertThat(rates(r)).containsExactly(600.0, 900.0, 1350.0, 1125.0, 1012.5, 956.25);
        assertThat(r.passed()).get().extracting(RateSearch.Probe::rate).isEqualTo(956.25);
        assertThat(r.missed()).get().extracting(RateSearch.Probe::rate).isEqualTo(1012.5);
        assertThat(r.aborted()).isEmpty();
        assertThat(r.errorsInAnyProbe()).isZero();
    }

    @Test
    void fallsGeometricallyWhenTheStartRateAlreadyFails() {
        RateSearch.Result r = search(12).run(capacity(300));

        // 600 fails, 400 fails, 266.7 passes; then 333.3 fails, 300 fails (exactly the target), 283.3 passes
        assertThat(rates(r)).hasSize(6);
        assertThat(rates(r).subList(0, 3)).containsExactly(600.0, 400.0, 600.0 / 1.5 / 1.5);
        assertThat(r.passed().orElseThrow().rate()).isBetween(300 / 1.1, 300.0);
    }

    @Test
    void nothingPassesWhenEvenTheMinimumRateFails() {
        RateSearch.Result r = search(20).run(capacity(10));

        assertThat(r.passed()).isEmpty();
        assertThat(rates(r)).last().isEqualTo(50.0);
        assertThat(r.aborted()).isEmpty();
    }

    @Test
    void errorsFailAProbeAndAreCounted() {
        // fast enough up to any rate, but from 1,000/s on some requests fail
        RateSearch.Result r = search(12).run(rate -> new RateSearch.Probe(rate, 1_000, rate >= 1000 ? 3 : 0));

        assertThat(r.passed().orElseThrow().rate()).isLessThan(1000).isGreaterThan(1000 / 1.1);
        assertThat(r.errorsInAnyProbe()).isPositive();
    }

    @Test
    void stopsAtTheProbeBudgetAndAtTheMaximumRate() {
        assertThat(rates(search(2).run(capacity(1000)))).containsExactly(600.0, 900.0);
        RateSearch.Result capped = search(20).run(capacity(1e9));
        assertThat(rates(capped)).last().isEqualTo(20_000.0);
        assertThat(capped.passed().orElseThrow().rate()).isEqualTo(20_000.0);
        assertThat(capped.missed()).isEmpty();
    }

    @Test
    void aFailingMeasurementEndsTheSearchKeepingWhatPassed() {
        RateSearch.Result r = search(12).run(rate -> {
            if (rate > 1000) {
                throw new IOException("backend n2 exited");
            }
            return new RateSearch.Probe(rate, 1_000, 0);
        });

        assertThat(rates(r)).containsExactly(600.0, 900.0);
        assertThat(r.passed().orElseThrow().rate()).isEqualTo(900.0);
        assertThat(r.aborted()).hasValueSatisfying(m -> assertThat(m).contains("backend n2 exited"));
    }

    @Test
    void rejectsSettingsOutOfRange() {
        assertThatThrownBy(() -> new RateSearch(10_000, 0, 600, 1.0, 50, 20_000, 12, 1.1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("growth 1.0");
        assertThatThrownBy(() -> new RateSearch(10_000, 0, 30, 1.5, 50, 20_000, 12, 1.1))
            .hasMessageContaining("50.0 <= 30.0");
    }
}
