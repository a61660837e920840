package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IntervalHistogramLogTest {
    @TempDir
    Path dir;

    @Test
    void eachFlushIsOneIntervalOfTheLogAndTheTotalAddsThemUpClamped() throws Exception {
        Path file = dir.resolve("arm-rep1.hlog");
        try (IntervalHistogramLog log = new IntervalHistogramLog(file, "test latencies", 1_000_000)) {
            log.start(1_800_000_000_000L);
            log.record(1_000);
            log.record(2_000);
            log.flush();
            log.record(5_000_000); // above the maximum: recorded as it
            log.record(-3);        // a clock step: recorded as 0
            log.flush();
            assertThat(log.total().getTotalCount()).isEqualTo(4);
            assertThat(log.total().getMaxValue()).isBetween(999_000L, 1_001_000L);
            assertThat(log.total().getMinValue()).isZero();
        }
        HistogramLogReader reader = new HistogramLogReader(file.toFile());
        List<Long> counts = new ArrayList<>();
        for (EncodableHistogram h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
            counts.add(((Histogram) h).getTotalCount());
        }
        assertThat(counts).containsExactly(2L, 2L);
        assertThat(reader.getStartTimeSec()).isEqualTo(1_800_000_000.0);
    }
}
