package io.bladegc.benchmarks.load;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The counts and HdrHistograms of one {@link OpenLoopLoad} run, while it runs: every request sent is counted as
 * outstanding until its outcome arrives; outcomes of measured requests go into the counts, the 2xx histogram, the
 * any-outcome histogram and the per-second timeline. Latencies above {@link OpenLoopLoad#MAX_LATENCY_MICROS} are
 * recorded as that maximum and counted as clamped.
 *
 * <p>Thread-safe: one lock, uncontended in a run (the event loop is the only writer; {@link #result} may be read from
 * another thread).
 */
final class LoadTally {
    private final Histogram ok = new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
    private final Histogram all = new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
    private final LoadCounts counts = new LoadCounts();
    private boolean measureStarted;
    private long measureStartNanos;
    private long measureEndNanos;
    private boolean gaveUp;
    private long lastDoneNanos = System.nanoTime();
    private long lastMeasuredDoneNanos;
    private long measureFrom;
    private IntervalLog intervalLog;

    /**
     * Sets up the per-second timeline; called once before the first request.
     *
     * @param measureFrom the intended send time from which requests are measured, {@link System#nanoTime()}
     * @param seconds     the measured window's length, rounded up to whole seconds
     */
    synchronized void window(long measureFrom, int seconds) {
        this.measureFrom = measureFrom;
        counts.timelineMaxMicros = new long[seconds];
        counts.timelineShed = new long[seconds];
    }

    /** @param log where measured 2xx latencies also go, one histogram per second; {@code null} for none */
    synchronized void intervalLog(IntervalLog log) {
        this.intervalLog = log;
    }

    /** @param now when the first measured request was sent */
    synchronized void measureStarted(long now) {
        measureStarted = true;
        measureStartNanos = now;
        measureEndNanos = now;
    }

    /**
     * @param now         when the scheduling thread finished sending
     * @param periodNanos the time between two requests, counted once more for the last request's own period
     */
    synchronized void measureEnded(long now, long periodNanos) {
        lastDoneNanos = Math.max(lastDoneNanos, now);
        if (measureStarted) {
            measureEndNanos = now + periodNanos;
        }
    }

    /**
     * @param measured  whether the request belongs to the measured window
     * @param lagNanos  how late it was sent after its intended time
     */
    synchronized void sent(boolean measured, long lagNanos) {
        if (measured) {
            counts.sent++;
            counts.maxSendLagMicros = Math.max(counts.maxSendLagMicros, TimeUnit.NANOSECONDS.toMicros(lagNanos));
        } else {
            counts.warmupSent++;
        }
    }

    /**
     * @param elapsedNanos since the first request was due
     * @param totalNanos   warm-up plus measured window
     * @return what has been sent so far, and the measured 2xx p99 so far
     */
    synchronized LoadProgress progress(long elapsedNanos, long totalNanos) {
        return new LoadProgress(elapsedNanos, totalNanos, counts.sent + counts.warmupSent, measureStarted,
            ok.getTotalCount() == 0 ? -1 : ok.getValueAtPercentile(99));
    }

    /** @param length the client-side queue's length after a measured request joined it */
    synchronized void queued(int length) {
        counts.maxQueued = Math.max(counts.maxQueued, length);
    }

    /** A response arrived (any status). */
    synchronized void answered(boolean measured, long intended, long latencyMicros, int status,
                               RetryAfter retryAfter) {
        if (measured && !gaveUp) {
            lastMeasuredDoneNanos = System.nanoTime();
            record(all, latencyMicros);
            if (status >= 200 && status < 300) {
                counts.ok++;
                record(ok, latencyMicros);
                if (intervalLog != null) {
                    intervalLog.record(Math.min(latencyMicros, OpenLoopLoad.MAX_LATENCY_MICROS),
                        System.currentTimeMillis());
                }
                int sec = second(intended);
                counts.timelineMaxMicros[sec] = Math.max(counts.timelineMaxMicros[sec], latencyMicros);
            } else if (status == 503) {
                counts.shed++;
                counts.timelineShed[second(intended)]++;
                if (retryAfter == RetryAfter.MISSING) {
                    counts.retryAfterMissing++;
                } else if (retryAfter == RetryAfter.INVALID) {
                    counts.retryAfterInvalid++;
                }
            } else {
                counts.otherStatus++;
                counts.otherStatuses.merge(status, 1L, Long::sum);
            }
        }
        done();
    }

    /** A request failed without a response: timed out, or another I/O error. */
    synchronized void failed(boolean measured, long intended, long latencyMicros, boolean timedOut) {
        if (measured && !gaveUp) {
            lastMeasuredDoneNanos = System.nanoTime();
            record(all, latencyMicros);
            if (timedOut) {
                counts.timeouts++;
            } else {
                counts.ioErrors++;
            }
        }
        done();
    }

    private int second(long intended) {
        long s = (intended - measureFrom) / 1_000_000_000L;
        return (int) Math.max(0, Math.min(s, counts.timelineShed.length - 1));
    }

    private void record(Histogram h, long micros) {
        if (micros > OpenLoopLoad.MAX_LATENCY_MICROS) {
            counts.clamped++;
            micros = OpenLoopLoad.MAX_LATENCY_MICROS;
        }
        h.recordValue(Math.max(0, micros));
    }

    private void done() {
        lastDoneNanos = System.nanoTime();
    }

    /** @return nanoseconds from the last outcome (or the start) to {@code now} */
    synchronized long quietSince(long now) {
        return now - lastDoneNanos;
    }

    /** Freezes the counts: what is still outstanding in the measured window is unfinished. */
    synchronized void giveUp() {
        gaveUp = true;
    }

    /**
     * @param targetRate the rate asked for, per second
     * @return a snapshot of the measured window
     */
    synchronized LoadResult result(double targetRate) {
        long answered = counts.ok + counts.shed + counts.otherStatus + counts.ioErrors + counts.timeouts;
        counts.unfinished = counts.sent - answered;
        double windowSeconds = (measureEndNanos - measureStartNanos) / 1e9;
        // Throughput: answers over the time from the first measured send to the last measured answer.
        long lastAnswer = lastMeasuredDoneNanos - measureEndNanos > 0 ? lastMeasuredDoneNanos : measureEndNanos;
        double answerSeconds = (lastAnswer - measureStartNanos) / 1e9;
        return new LoadResult(targetRate, windowSeconds > 0 ? counts.sent / windowSeconds : 0,
            answered > 0 && answerSeconds > 0 ? answered / answerSeconds : 0, counts.copy(), ok.copy(), all.copy());
    }
}
