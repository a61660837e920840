package io.bladegc.api.internal;

import io.bladegc.api.Generation;
import java.time.Duration;

/**
 * Predicts a collection's pause from the work it will do, fitted from the JVM's GC notifications, one fit per
 * generation: pause = a + b * bytes, where bytes are the survivors copied (young) or the live bytes left (old).
 * Older samples weigh less (decay 0.8 per sample), so the model follows a changing workload. Until a generation has
 * three samples with different sizes the estimate is the decayed mean pause, and before any sample a conservative
 * default (25 ms young, 250 ms old).
 *
 * <p>Thread-safe (synchronized; called a few times per collection).
 */
final class PauseModel {
    private static final double DECAY = 0.8;
    private final Fit young = new Fit(Duration.ofMillis(25).toNanos());
    private final Fit old = new Fit(Duration.ofMillis(250).toNanos());

    /** Records one observed pause. */
    public synchronized void record(Generation generation, long bytes, long pauseNanos) {
        fit(generation).add(bytes, pauseNanos);
    }

    /** @return the expected pause for a collection of {@code generation} that will process {@code bytes} */
    synchronized Duration estimate(Generation generation, long bytes) {
        return Duration.ofNanos(Math.max(0, Math.round(fit(generation).predict(bytes))));
    }

    /**
     * @return the expected pause of the next collection of {@code generation}: the fit at the size of its latest
     *     sample, the best guess for the next one (the survivors of a young collection, the live set a full one left,
     *     change slowly), not at the heap's fill now, which the old generation's fit never saw (Parallel's full
     *     collections fitted at a 520 MiB live set and asked at a 900 MiB fill were estimated at 5-35 s, and fenced)
     */
    public synchronized Duration next(Generation generation) {
        return estimate(generation, Math.round(fit(generation).lastX));
    }

    private Fit fit(Generation generation) {
        return generation == Generation.YOUNG ? young : old;
    }

    private static final class Fit {
        private final double defaultNanos;
        private double n;
        private double sx;
        private double sy;
        private double sxx;
        private double sxy;
        private int samples;
        private double lastX;

        Fit(double defaultNanos) {
            this.defaultNanos = defaultNanos;
        }

        void add(double x, double y) {
            n = n * DECAY + 1;
            sx = sx * DECAY + x;
            sy = sy * DECAY + y;
            sxx = sxx * DECAY + x * x;
            sxy = sxy * DECAY + x * y;
            samples++;
            lastX = x;
        }

        double predict(double x) {
            if (samples == 0) {
                return defaultNanos;
            }
            double mean = sy / n;
            double varX = sxx / n - (sx / n) * (sx / n);
            if (samples < 3 || varX <= 1e-9 * Math.max(1, sxx / n)) {
                return mean;
            }
            double slope = (sxy / n - (sx / n) * (sy / n)) / varX;
            if (slope < 0) {
                return mean; // more work never makes a pause shorter; a negative slope is noise
            }
            double intercept = sy / n - slope * sx / n;
            return Math.max(intercept + slope * x, 0);
        }
    }
}
