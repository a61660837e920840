package io.bladegc.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LatencyPlotTest {
    @TempDir
    Path dir;

    @Test
    void percentileLabelsAreEvenlySpacedNines() {
        assertThat(LatencyPlot.percentileLabel(0)).isEqualTo("0%");
        assertThat(LatencyPlot.percentileLabel(1)).isEqualTo("90%");
        assertThat(LatencyPlot.percentileLabel(2)).isEqualTo("99%");
        assertThat(LatencyPlot.percentileLabel(3)).isEqualTo("99.9%");
        assertThat(LatencyPlot.percentileLabel(5)).isEqualTo("99.999%");
    }

    @Test
    void pointsFollowTheHistogramUpToItsMaximum() {
        Histogram h = new Histogram(60_000_000L, 3);
        for (int i = 1; i <= 10_000; i++) {
            h.recordValue(i * 10L); // 10 us .. 100 ms, uniform
        }
        double[][] xy = LatencyPlot.points(h);
        assertThat(xy[0][0]).isEqualTo(0.0, org.assertj.core.data.Offset.offset(0.01));
        for (int i = 1; i < xy[0].length; i++) {
            assertThat(xy[0][i]).isGreaterThanOrEqualTo(xy[0][i - 1]);
            assertThat(xy[1][i]).isGreaterThanOrEqualTo(xy[1][i - 1]);
        }
        assertThat(xy[1][xy[1].length - 1]).as("the last point is the maximum, in ms").isBetween(99.9, 100.1);
    }

    @Test
    void writesAPngWithALinePerArm() throws Exception {
        Map<String, Histogram> arms = new LinkedHashMap<>();
        for (String arm : new String[] {"G1", "Blade", "empty"}) {
            Histogram h = new Histogram(60_000_000L, 3);
            if (!arm.equals("empty")) {
                for (int i = 0; i < 100_000; i++) {
                    h.recordValue(1_000 + (arm.equals("G1") && i % 500 == 0 ? 80_000 : i % 997));
                }
            }
            arms.put(arm, h);
        }
        Path png = dir.resolve("plots/latency.png");
        LatencyPlot.write(png, "test", arms);
        BufferedImage img = ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isEqualTo(LatencyPlot.WIDTH);
        assertThat(img.getHeight()).isEqualTo(LatencyPlot.HEIGHT);
        Set<Integer> colours = new HashSet<>();
        for (int x = 0; x < img.getWidth(); x += 3) {
            for (int y = 0; y < img.getHeight(); y += 3) {
                colours.add(img.getRGB(x, y));
            }
        }
        assertThat(colours.size()).as("a drawn chart, not a blank image").isGreaterThan(10);
    }
}
