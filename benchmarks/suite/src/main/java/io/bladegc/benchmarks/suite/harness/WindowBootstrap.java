package io.bladegc.benchmarks.suite.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * A percentile of several measured windows pooled into one histogram, with a bootstrap interval over the windows: the
 * windows are resampled with replacement (a window, not a request, is the unit: requests within a window share its
 * collections and are not independent), pooled again, and the percentile read each time; the interval is the middle
 * {@value #LEVEL} of those. A ratio between two arms resamples both arms' windows independently. Deterministic (a
 * fixed seed), so a table reads the same when recomputed. Stateless.
 */
public final class WindowBootstrap {
    /** Resamples per interval. */
    public static final int RESAMPLES = 2_000;
    /** The interval's coverage. */
    static final double LEVEL = 0.95;
    private static final long SEED = 20261129L;

    /**
     * @param value the percentile of all windows pooled
     * @param low   the interval's lower end
     * @param high  its upper end
     */
    public record Estimate(double value, double low, double high) {
    }

    private WindowBootstrap() {
    }

    /**
     * @param windows    one histogram per window, at least one
     * @param percentile e.g. 99.9
     * @return the pooled percentile, in the histograms' unit, with its interval
     */
    public static Estimate percentile(List<Histogram> windows, double percentile) {
        requireWindows(windows);
        SplittableRandom random = new SplittableRandom(SEED);
        double[] samples = new double[RESAMPLES];
        for (int i = 0; i < RESAMPLES; i++) {
            samples[i] = resample(windows, random).getValueAtPercentile(percentile);
        }
        return estimate(pooled(windows).getValueAtPercentile(percentile), samples);
    }

    /**
     * @return the pooled percentile of {@code arm} over that of {@code baseline}, with its interval (each resample
     *     draws both arms' windows anew)
     */
    public static Estimate ratio(List<Histogram> arm, List<Histogram> baseline, double percentile) {
        requireWindows(arm);
        requireWindows(baseline);
        SplittableRandom random = new SplittableRandom(SEED);
        double[] samples = new double[RESAMPLES];
        for (int i = 0; i < RESAMPLES; i++) {
            samples[i] = ratioOf(resample(arm, random), resample(baseline, random), percentile);
        }
        return estimate(ratioOf(pooled(arm), pooled(baseline), percentile), samples);
    }

    /** @return every window's latencies in one histogram */
    static Histogram pooled(List<Histogram> windows) {
        Histogram sum = new Histogram(windows.get(0).getHighestTrackableValue(), 3);
        windows.forEach(sum::add);
        return sum;
    }

    private static Histogram resample(List<Histogram> windows, SplittableRandom random) {
        List<Histogram> drawn = new ArrayList<>();
        for (int i = 0; i < windows.size(); i++) {
            drawn.add(windows.get(random.nextInt(windows.size())));
        }
        return pooled(drawn);
    }

    private static double ratioOf(Histogram arm, Histogram baseline, double percentile) {
        return (double) arm.getValueAtPercentile(percentile) / Math.max(1, baseline.getValueAtPercentile(percentile));
    }

    private static Estimate estimate(double value, double[] samples) {
        Arrays.sort(samples);
        int low = (int) Math.floor((1 - LEVEL) / 2 * (samples.length - 1));
        int high = (int) Math.ceil((1 + LEVEL) / 2 * (samples.length - 1));
        return new Estimate(value, samples[low], samples[high]);
    }

    private static void requireWindows(List<Histogram> windows) {
        if (windows.isEmpty()) {
            throw new IllegalArgumentException("no window to pool");
        }
    }
}
