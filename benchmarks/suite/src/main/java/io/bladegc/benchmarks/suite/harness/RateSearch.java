package io.bladegc.benchmarks.suite.harness;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A search for the highest request rate at which a latency percentile stays under a target. Probes rise
 * geometrically from {@code startRate} (times {@code growth}, at most {@code maxRate}) until one fails, then bisect
 * between the highest passing and the lowest failing rate until they are within {@code resolution} of each other.
 * When the start rate already fails, probes fall geometrically (divided by {@code growth}, down to {@code minRate})
 * until one passes, and then bisect likewise. A probe passes when its latency is under {@code targetMicros} and its
 * errors are at most {@code maxErrors}. At most {@code maxProbes} probes in all. Immutable; {@link #run} calls the
 * measurement on the calling thread, one probe at a time, and the rates it asks for only depend on the answers.
 *
 * @param targetMicros the latency a passing probe stays under, microseconds
 * @param maxErrors    the most errors a passing probe may have (0: any error fails it)
 * @param startRate    the first probe's rate, per second
 * @param growth       the factor between successive rates before the first change of outcome, above 1
 * @param minRate      the lowest rate probed; when it fails too, nothing passes
 * @param maxRate      the highest rate probed; when it passes, the search ends there
 * @param maxProbes    the most probes, at least 1
 * @param resolution   bisection ends when the lowest failing rate is at most this factor above the highest passing
 *                     one, above 1
 */
public record RateSearch(long targetMicros, long maxErrors, double startRate, double growth, double minRate,
                         double maxRate, int maxProbes, double resolution) {

    /** Measures one window at a rate. */
    @FunctionalInterface
    public interface Measurement {
        /**
         * @param rate requests per second
         * @return what the window measured
         * @throws Exception when it cannot measure (e.g. the server died): the search ends there, keeping the probes
         *     made so far
         */
        Probe measure(double rate) throws Exception;
    }

    /**
     * One window's outcome.
     *
     * @param rate          the rate it ran at, per second
     * @param latencyMicros the latency at the search's percentile, microseconds
     * @param errors        requests that failed
     */
    public record Probe(double rate, long latencyMicros, long errors) {
    }

    /**
     * What a search found.
     *
     * @param probes  every probe, in the order made
     * @param passed  the passing probe at the highest rate, empty when none passed
     * @param missed  the failing probe at the lowest rate above {@code passed} (above nothing when none passed),
     *                empty when no probe above it failed: then {@code passed} is a lower bound
     * @param aborted why the search ended early (the measurement threw), empty when it ran to its end
     */
    public record Result(List<Probe> probes, Optional<Probe> passed, Optional<Probe> missed,
                         Optional<String> aborted) {
        public Result {
            probes = List.copyOf(probes);
        }

        /** @return the errors of all probes added up */
        public long errorsInAnyProbe() {
            return probes.stream().mapToLong(Probe::errors).sum();
        }
    }

    public RateSearch {
        if (targetMicros <= 0 || maxErrors < 0 || !(startRate > 0) || !(growth > 1) || !(minRate > 0)
            || !(maxRate >= startRate) || startRate < minRate || maxProbes < 1 || !(resolution > 1)) {
            throw new IllegalArgumentException("rate search settings out of range: need target > 0, errors >= 0,"
                + " 0 < minRate <= startRate <= maxRate, growth > 1, probes >= 1, resolution > 1; got target "
                + targetMicros + " us, errors " + maxErrors + ", rates " + minRate + " <= " + startRate + " <= "
                + maxRate + ", growth " + growth + ", probes " + maxProbes + ", resolution " + resolution);
        }
    }

    /** @return whether {@code p} passes: latency under the target, errors within the allowance */
    public boolean passes(Probe p) {
        return p.latencyMicros() < targetMicros && p.errors() <= maxErrors;
    }

    /**
     * Runs the search.
     *
     * @param measurement measures a window at a rate
     * @return the probes and the best passing one; when the measurement throws, what was found until then
     */
    public Result run(Measurement measurement) {
        List<Probe> probes = new ArrayList<>();
        double lowestFailing = Double.POSITIVE_INFINITY;
        Probe best = null;
        try {
            double rate = startRate;
            while (probes.size() < maxProbes) {
                Probe p = probe(measurement, rate, probes);
                if (passes(p)) {
                    best = p;
                    if (lowestFailing < Double.POSITIVE_INFINITY || rate >= maxRate) {
                        break;
                    }
                    rate = Math.min(rate * growth, maxRate);
                } else {
                    lowestFailing = rate;
                    if (best != null || rate <= minRate) {
                        break;
                    }
                    rate = Math.max(rate / growth, minRate);
                }
            }
            while (best != null && lowestFailing < Double.POSITIVE_INFINITY
                && lowestFailing / best.rate() > resolution && probes.size() < maxProbes) {
                double middle = (best.rate() + lowestFailing) / 2;
                Probe p = probe(measurement, middle, probes);
                if (passes(p)) {
                    best = p;
                } else {
                    lowestFailing = middle;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return result(probes, "interrupted");
        } catch (Exception e) {
            return result(probes, "measuring failed: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        }
        return result(probes, null);
    }

    private static Probe probe(Measurement measurement, double rate, List<Probe> probes) throws Exception {
        Probe p = measurement.measure(rate);
        probes.add(p);
        return p;
    }

    private Result result(List<Probe> probes, String aborted) {
        Optional<Probe> best = probes.stream().filter(this::passes).max(Comparator.comparingDouble(Probe::rate));
        double above = best.map(Probe::rate).orElse(0.0);
        Optional<Probe> missed = probes.stream().filter(p -> !passes(p) && p.rate() > above)
            .min(Comparator.comparingDouble(Probe::rate));
        return new Result(probes, best, missed, Optional.ofNullable(aborted));
    }
}
