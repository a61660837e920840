package io.bladegc.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimelinePlotTest {
    @TempDir
    Path dir;

    @Test
    void writesOnePanelPerArmStackedInOnePng() throws Exception {
        long[] calm = new long[45];
        long[] spiky = new long[45];
        for (int i = 0; i < 45; i++) {
            calm[i] = 3_000 + i * 10;
            spiky[i] = i % 10 == 3 ? 900_000 : 4_000;
        }
        TimelinePlot.Panel g1 = new TimelinePlot.Panel("Parallel alone", spiky,
            Map.of("n1", List.of(new double[] {3.2, 850}), "n2", List.<double[]>of()), List.of());
        TimelinePlot.Panel blade = new TimelinePlot.Panel("Blade", calm,
            Map.of("n1", List.of(new double[] {3.2, 40}, new double[] {13.0, 38})),
            List.of(new double[] {3.1, 3.3}, new double[] {12.9, 13.1}));
        Path png = dir.resolve("plots/timeline.png");
        TimelinePlot.write(png, List.of(g1, blade));
        BufferedImage img = ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isEqualTo(LatencyPlot.WIDTH);
        assertThat(img.getHeight()).isEqualTo(2 * TimelinePlot.PANEL_HEIGHT);
    }
}
