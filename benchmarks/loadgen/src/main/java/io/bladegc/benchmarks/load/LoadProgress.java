package io.bladegc.benchmarks.load;

/**
 * How far a running {@link OpenLoopLoad} has come, for progress lines while it runs.
 *
 * @param elapsedNanos since the first request was due
 * @param totalNanos   warm-up plus measured window
 * @param sent         requests sent so far, warm-up included
 * @param measuring    whether the measured window has begun
 * @param okP99Micros  the 99th percentile of the measured 2xx latencies so far, microseconds; -1 before any
 */
public record LoadProgress(long elapsedNanos, long totalNanos, long sent, boolean measuring, long okP99Micros) {
}
