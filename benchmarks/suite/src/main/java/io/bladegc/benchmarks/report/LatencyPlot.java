package io.bladegc.benchmarks.report;

import java.awt.BasicStroke;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A latency percentile plot, as the papers and HdrHistogram's plotter draw them: one line per arm, the percentile on
 * a logarithmic scale of {@code 1 / (1 - p)} so that 90 %, 99 %, 99.9 % and 99.99 % are evenly spaced and the tail
 * gets the room, and the latency in milliseconds on a logarithmic axis. Written as a PNG with XChart.
 *
 * <p>Stateless; thread-safe.
 */
public final class LatencyPlot {
    /** The plot's size in pixels. */
    public static final int WIDTH = 1000;
    public static final int HEIGHT = 620;
    /** The right end of the percentile axis: 99.9999 %. */
    private static final double MAX_X = 1e6;

    private LatencyPlot() {
    }

    /**
     * Writes the plot.
     *
     * @param png   where the PNG goes (its folder is created)
     * @param title the plot's title
     * @param arms  arm name to its latency histogram in microseconds, in legend order; empty histograms are skipped
     */
    public static void write(Path png, String title, Map<String, Histogram> arms) throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .xAxisTitle("percentile").yAxisTitle("latency (ms)").build();
        XYStyler style = chart.getStyler();
        style.setYAxisLogarithmic(true);
        style.setXAxisMin(0.0);
        style.setXAxisMax(Math.log10(MAX_X));
        style.setXAxisTickMarkSpacingHint(WIDTH / 8);
        style.setLegendPosition(Styler.LegendPosition.InsideNW);
        style.setxAxisTickLabelsFormattingFunction(LatencyPlot::percentileLabel);
        for (Map.Entry<String, Histogram> arm : arms.entrySet()) {
            Histogram h = arm.getValue();
            if (h.getTotalCount() == 0) {
                continue;
            }
            double[][] xy = points(h);
            XYSeries s = chart.addSeries(arm.getKey(), xy[0], xy[1]);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineStyle(new BasicStroke(2f));
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * @return x = log10(1 / (1 - p)), y = latency in ms, one point per step of the histogram's percentile iteration
     *     (x is drawn on a linear axis: XChart labels a logarithmic one only at its ends)
     */
    static double[][] points(Histogram h) {
        List<double[]> points = new ArrayList<>();
        for (HistogramIterationValue v : h.percentiles(5)) {
            double p = v.getPercentileLevelIteratedTo() / 100.0;
            double x = Math.log10(p >= 1 ? MAX_X : Math.min(MAX_X, 1 / (1 - p)));
            points.add(new double[] {x, Math.max(0.001, h.highestEquivalentValue(v.getValueIteratedTo()) / 1000.0)});
            if (p >= 1) {
                break;
            }
        }
        double[][] xy = new double[2][points.size()];
        for (int i = 0; i < points.size(); i++) {
            xy[0][i] = points.get(i)[0];
            xy[1][i] = points.get(i)[1];
        }
        return xy;
    }

    /** @return {@code log10(1 / (1 - p))} as a percentile label: 0 -> "0%", 1 -> "90%", 3 -> "99.9%" */
    static String percentileLabel(double x) {
        double p = 100 * (1 - Math.pow(10, -x));
        int decimals = Math.max(0, (int) Math.ceil(x - 1e-9) - 2);
        return String.format(Locale.ROOT, "%." + decimals + "f%%", p);
    }
}
