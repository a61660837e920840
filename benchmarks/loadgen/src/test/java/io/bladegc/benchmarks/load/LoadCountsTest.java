package io.bladegc.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.Arrays;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoadCountsTest {

    @Test
    void theCounterListNamesEveryLongField() {
        assertThat(LoadCounts.COUNTERS.stream().map(LoadCounts.Counter::key))
            .containsExactlyElementsOf(Arrays.stream(LoadCounts.class.getDeclaredFields())
                .filter(f -> f.getType() == long.class).map(Field::getName).toList());
    }

    @Test
    void everyCounterIsCopiedSavedAndLoaded(@TempDir Path dir) throws IOException {
        LoadCounts counts = new LoadCounts();
        for (int i = 0; i < LoadCounts.COUNTERS.size(); i++) {
            LoadCounts.COUNTERS.get(i).set().accept(counts, i + 1);
        }
        Path file = dir.resolve("r.properties");
        LoadResultFile.save(new LoadResult(1, 1, 1, counts, histogram(), histogram()), file);
        LoadCounts copied = counts.copy();
        LoadCounts loaded = LoadResultFile.load(file).counts();

        for (int i = 0; i < LoadCounts.COUNTERS.size(); i++) {
            LoadCounts.Counter k = LoadCounts.COUNTERS.get(i);
            assertThat(k.get().applyAsLong(copied)).as(k.key()).isEqualTo(i + 1);
            assertThat(k.get().applyAsLong(loaded)).as(k.key()).isEqualTo(i + 1);
        }
    }

    private static Histogram histogram() {
        return new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
    }
}
