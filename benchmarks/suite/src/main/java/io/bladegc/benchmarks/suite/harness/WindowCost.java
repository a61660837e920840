package io.bladegc.benchmarks.suite.harness;

import io.bladegc.benchmarks.load.LoadResult;
import java.util.Optional;

/**
 * One measured window of a cluster: the tail its clients saw and what it cost the backends. Immutable.
 *
 * @param rate       requests per second sent
 * @param sent       requests sent in the window
 * @param errors     requests that failed at the client (503, other status, I/O error, timeout, unfinished)
 * @param p99Micros  the 2xx latency's p99, microseconds
 * @param p999Micros its p99.9
 * @param cpuSeconds the backends' CPU time in the window, added up, GC threads included
 * @param peakRssKib the largest backend's peak resident memory since it started, KiB
 * @param stalls     a concurrent collector's stalls in the window ({@link ConcurrentStalls}); empty for the other
 *                   collectors
 */
public record WindowCost(double rate, long sent, long errors, long p99Micros, long p999Micros, double cpuSeconds,
                         long peakRssKib, Optional<ConcurrentStalls> stalls) {

    /** @return the window's cost from the client's result, the backends' usage and the stalls their GC logs show */
    public static WindowCost of(double rate, LoadResult load, BackendUsage.Window used,
                                Optional<ConcurrentStalls> stalls) {
        return new WindowCost(rate, load.sent(), errors(load), load.okPercentileMicros(99),
            load.okPercentileMicros(99.9), used.cpuSeconds(), used.peakRssKib(), stalls);
    }

    /** @return the requests that failed at the client: 503s, other statuses, I/O errors, timeouts, unfinished */
    public static long errors(LoadResult load) {
        return load.shed() + load.otherStatus() + load.ioErrors() + load.timeouts() + load.unfinished();
    }

    /** @return the backends' CPU seconds per 1,000 requests sent (as {@link SuiteTable#cpuPerThousand}); NaN: none */
    public double cpuSecondsPerThousand() {
        return sent == 0 ? Double.NaN : cpuSeconds * 1000 / sent;
    }

    /** @return the largest backend's peak resident memory, MiB */
    public long peakRssMib() {
        return Math.round(peakRssKib / 1024.0);
    }
}
