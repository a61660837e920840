package io.bladegc.benchmarks.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Latency over time, one panel per arm stacked in one PNG: the largest latency of each second of the measured window
 * (a line), each backend's GC pauses (a point per pause at its start, as high as it lasted) and, where a coordinator
 * granted slots, each grant (a bar along the bottom from its start to its end). All panels share the axes' scale, so
 * the arms compare at a glance. Written with XChart.
 *
 * <p>Stateless; thread-safe.
 */
public final class TimelinePlot {
    /** One panel's height in pixels. */
    public static final int PANEL_HEIGHT = 330;
    /** Where grants are drawn on the latency axis, milliseconds (below every latency that matters). */
    private static final double GRANT_Y = 0.2;
    private static final double MIN_Y = 0.1;

    private TimelinePlot() {
    }

    /**
     * One arm's panel.
     *
     * @param title      the panel's title
     * @param maxMicros  the largest latency of each second of the window, microseconds (0: no answer that second)
     * @param pauses     per backend, its pauses in the window: {start, seconds into the window; length, ms}
     * @param grants     the coordinator's grants: {start, end}, seconds into the window; empty without one
     */
    public record Panel(String title, long[] maxMicros, Map<String, List<double[]>> pauses, List<double[]> grants) {
    }

    /** Writes the panels, top to bottom, into {@code png} (its folder is created). */
    public static void write(Path png, List<Panel> panels) throws IOException {
        double top = MIN_Y * 10;
        double right = 1;
        for (Panel p : panels) {
            right = Math.max(right, p.maxMicros().length);
            for (long v : p.maxMicros()) {
                top = Math.max(top, v / 1000.0);
            }
            for (List<double[]> ps : p.pauses().values()) {
                for (double[] x : ps) {
                    top = Math.max(top, x[1]);
                }
            }
        }
        List<XYChart> charts = new ArrayList<>();
        for (Panel p : panels) {
            charts.add(chart(p, right, top * 1.5));
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(charts, charts.size(), 1, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static XYChart chart(Panel p, double right, double top) {
        XYChart chart = new XYChartBuilder().width(LatencyPlot.WIDTH).height(PANEL_HEIGHT).title(p.title())
            .xAxisTitle("seconds into the measured window").yAxisTitle("ms").build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(MIN_Y);
        chart.getStyler().setYAxisMax(top);
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setXAxisMax(right);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setMarkerSize(7);
        double[] x = new double[p.maxMicros().length];
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = i + 0.5;
            y[i] = Math.max(MIN_Y, p.maxMicros()[i] / 1000.0);
        }
        if (x.length > 0) {
            XYSeries s = chart.addSeries("max latency / s", x, y);
            s.setMarker(SeriesMarkers.NONE);
            s.setLineStyle(new BasicStroke(1.5f));
            s.setLineColor(Color.DARK_GRAY);
        }
        for (Map.Entry<String, List<double[]>> node : p.pauses().entrySet()) {
            if (node.getValue().isEmpty()) {
                continue;
            }
            double[] px = new double[node.getValue().size()];
            double[] py = new double[px.length];
            for (int i = 0; i < px.length; i++) {
                px[i] = node.getValue().get(i)[0];
                py[i] = Math.max(MIN_Y, node.getValue().get(i)[1]);
            }
            XYSeries s = chart.addSeries(node.getKey() + " GC pause", px, py);
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        }
        for (int i = 0; i < p.grants().size(); i++) {
            double[] g = p.grants().get(i);
            XYSeries s = chart.addSeries(i == 0 ? "slot grants" : "grant " + (i + 1), new double[] {g[0], g[1]},
                new double[] {GRANT_Y, GRANT_Y});
            s.setMarker(SeriesMarkers.NONE);
            s.setLineStyle(new BasicStroke(5f));
            s.setLineColor(new Color(60, 140, 60));
            s.setShowInLegend(i == 0);
        }
        return chart;
    }
}
