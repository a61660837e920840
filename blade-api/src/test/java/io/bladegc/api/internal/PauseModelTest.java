package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.Generation;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PauseModelTest {

    @Test
    void usesConservativeDefaultsBeforeAnySample() {
        PauseModel m = new PauseModel();
        assertThat(m.estimate(Generation.YOUNG, 0)).isEqualTo(Duration.ofMillis(25));
        assertThat(m.estimate(Generation.OLD, 0)).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void fitsPauseAgainstBytesPerGeneration() {
        PauseModel m = new PauseModel();
        // young: 2 ms + 1 ms per MiB of survivors
        for (int i = 1; i <= 10; i++) {
            m.record(Generation.YOUNG, i << 20, Duration.ofMillis(2 + i).toNanos());
        }
        assertThat(m.estimate(Generation.YOUNG, 20L << 20).toMillis()).isBetween(20L, 24L);
        assertThat(m.estimate(Generation.OLD, 0)).as("generations are fitted apart")
            .isEqualTo(Duration.ofMillis(250));
        assertThat(m.next(Generation.YOUNG)).as("at the latest sample's size")
            .isEqualTo(m.estimate(Generation.YOUNG, 10L << 20));
    }

    @Test
    void theNextFullCollectionIsEstimatedAtTheLiveSetTheLastOneLeft() {
        PauseModel m = new PauseModel();
        // Parallel's full collections in the load sweep: the live set left stays within a MiB of 520 MiB, the
        // pauses vary with the machine's load; the fit's slope is noise
        long[] pausesMillis = {420, 610, 480, 740, 450, 690, 410, 560};
        for (int i = 0; i < pausesMillis.length; i++) {
            m.record(Generation.OLD, (520L << 20) + (i % 3) * 300_000L, Duration.ofMillis(pausesMillis[i]).toNanos());
        }
        assertThat(m.next(Generation.OLD).toMillis()).isBetween(400L, 750L);
        assertThat(m.estimate(Generation.OLD, 900L << 20)).as("what asking at the old generation's fill gave")
            .isGreaterThan(Duration.ofSeconds(2));
    }

    @Test
    void aConstantSizeGivesTheMeanAndNoiseNeverGivesANegativePause() {
        PauseModel m = new PauseModel();
        for (int i = 0; i < 5; i++) {
            m.record(Generation.OLD, 100, Duration.ofMillis(40).toNanos());
        }
        assertThat(m.estimate(Generation.OLD, 1_000_000).toMillis()).isEqualTo(40);
        PauseModel noisy = new PauseModel();
        noisy.record(Generation.YOUNG, 10, 9_000_000);
        noisy.record(Generation.YOUNG, 20, 5_000_000);
        noisy.record(Generation.YOUNG, 30, 1_000_000);
        assertThat(noisy.estimate(Generation.YOUNG, 1_000)).isPositive();
    }
}
