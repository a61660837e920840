package io.bladegc.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ArrivalsTest {
    @Test
    void constantArrivalsAreEvenlySpacedWithoutDrift() {
        Arrivals a = new Arrivals(Arrivals.Kind.CONSTANT, 3_000, 1_000, 1);
        assertThat(a.next()).isEqualTo(1_000);
        long last = 0;
        for (int i = 1; i < 3_000_000; i++) {
            last = a.next();
        }
        long exact = 1_000 + 999_999_666_666L; // 1000 ns + 2,999,999 * (1e9 / 3000) ns, rounded down
        assertThat(last).as("request 2,999,999 of a 3,000/s run").isBetween(exact - 2, exact + 2);
        assertThat(a.count()).isEqualTo(3_000_000);
    }

    @Test
    void poissonArrivalsHaveTheRateAndExponentialGapsAndRepeatWithTheSeed() {
        Arrivals a = new Arrivals(Arrivals.Kind.POISSON, 1_000, 0, 42);
        int n = 200_000;
        long previous = a.next();
        long longGaps = 0;
        for (int i = 1; i < n; i++) {
            long t = a.next();
            longGaps += t - previous > 2_000_000 ? 1 : 0; // P(gap > 2 mean) = e^-2
            previous = t;
        }
        double rate = (n - 1) / (previous / 1e9);
        assertThat(rate).isBetween(990.0, 1_010.0);
        assertThat(longGaps / (double) n).isBetween(Math.exp(-2) - 0.005, Math.exp(-2) + 0.005);
        Arrivals again = new Arrivals(Arrivals.Kind.POISSON, 1_000, 0, 42);
        Arrivals same = new Arrivals(Arrivals.Kind.POISSON, 1_000, 0, 42);
        Arrivals other = new Arrivals(Arrivals.Kind.POISSON, 1_000, 0, 43);
        for (Arrivals x : new Arrivals[] {again, same, other}) {
            x.next();
            x.next();
        }
        assertThat(again.peek()).isEqualTo(same.peek()).isNotEqualTo(other.peek());
        assertThatThrownBy(() -> new Arrivals(Arrivals.Kind.CONSTANT, 0, 0, 1))
            .hasMessageContaining("rate must be positive");
    }
}
