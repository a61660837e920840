package io.bladegc.api.internal;

import io.bladegc.api.DrainedCollection;
import io.bladegc.api.Gate;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.GcRequest;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * The default upcall handling on one node (GCI, BLADE's single-node case): close the gate (or find it closed by the
 * node as its watcher asked), wait for the trailers,
 * collect (unless a deadline its caller gave has passed by then), open the gate; one log line with the timeline (at INFO for the first few after start, then at DEBUG:
 * {@link MinuteSummary}). Runs on the {@code blade-gc} thread, never on a request thread. If the trailers outlast the drain timeout it collects anyway, and counts and logs that.
 *
 * <p>Thread-safe (one sequence at a time on the node's single gc thread).
 */
final class DrainSequence {
    /** {@code collectByNanos} for a sequence without a deadline. */
    static final long NO_DEADLINE = Long.MAX_VALUE;
    /** Drain estimate before any drain was measured. */
    private static final long INITIAL_DRAIN_NANOS = 5_000_000;

    private final Gate gate;
    private final Duration drainTimeout;
    private final LocalNode node;
    private final NodeCounters counters;
    private final HeapLayout layout;
    private final QuietWindows quiet = new QuietWindows();
    private final MinuteSummary minutes;
    private final DecayingMax drainEstimate;

    DrainSequence(HeapLayout layout, Gate gate, Duration drainTimeout, LocalNode node, NodeCounters counters,
                  MinuteSummary minutes) {
        this.layout = layout;
        this.minutes = minutes;
        this.gate = gate;
        this.drainTimeout = drainTimeout;
        this.drainEstimate = new DecayingMax(INITIAL_DRAIN_NANOS, drainTimeout.toNanos());
        this.node = node;
        this.counters = counters;
    }

    /** @return the drain time to plan for: the recent worst case, decaying slowly, never above the timeout */
    long drainEstimateNanos() {
        return drainEstimate.value();
    }

    /** @return the recent windows with the gate closed and nothing in flight; see {@link QuietWindows#snapshot()} */
    long[] quietWindows() {
        return quiet.snapshot();
    }

    /**
     * Runs the sequence on the calling thread; the gate is open again when it returns or throws.
     *
     * @param logLine        whether to log the event's line (and a drain timeout); {@code false} when the caller logs
     *                       its own line with the returned timeline, so that one GC event makes one line
     * @param collectByNanos the latest {@link System#nanoTime()} at which the collection may begin (a lease's); past
     *                       it after the drain, nothing is collected ({@link GcOutcome#TOO_LATE}); or
     *                       {@link #NO_DEADLINE}
     * @return the timeline
     */
    DrainedCollection run(GcRequest request, boolean logLine, long collectByNanos) {
        long t0 = System.nanoTime();
        gate.close();
        return runClosed(request, logLine, t0, collectByNanos);
    }

    /**
     * {@link #run} for a gate its caller closed already, at {@code closedNanos}: the drain is timed from then.
     */
    DrainedCollection runClosed(GcRequest request, boolean logLine, long closedNanos, long collectByNanos) {
        long t0 = closedNanos;
        try {
            boolean drained = gate.awaitDrained(drainTimeout);
            long t1 = System.nanoTime();
            long[] quietFrom = layout.beanCounts();
            if (!drained) {
                counters.drainTimeouts.increment();
            }
            if (collectByNanos != NO_DEADLINE && t1 - collectByNanos > 0) {
                return new DrainedCollection(GcOutcome.TOO_LATE, Duration.ofNanos(t1 - t0), Duration.ZERO, drained);
            }
            if (!drained && logLine) {
                LocalNode.LOG.log(Level.WARNING, "Blade GC #" + request.id() + ": " + gate.inFlight()
                    + " requests still in flight after the drain timeout of " + drainTimeout.toMillis()
                    + " ms; collecting anyway");
            }
            GcOutcome outcome = node.startGc(request.id(), collectByNanos);
            if (outcome == GcOutcome.TOO_LATE) {
                return new DrainedCollection(outcome, Duration.ofNanos(t1 - t0),
                    Duration.ofNanos(System.nanoTime() - t1), drained);
            }
            long t2 = System.nanoTime();
            if (drained) {
                quiet.add(quietFrom, layout.beanCounts());
            }
            long drainNanos = t1 - t0;
            minutes.drained(drainNanos);
            drainEstimate.observe(drainNanos);
            if (logLine) {
                LocalNode.LOG.log(minutes.tellAtInfo() ? Level.INFO : Level.DEBUG, () -> String.format(
                    "Blade GC #%d %s %s: trailers %.1f ms, gc %.1f ms (estimated %.1f ms), headroom was %d KiB",
                    request.id(), request.generation(), outcome, drainNanos / 1e6, (t2 - t1) / 1e6,
                    request.estimatedPause().toNanos() / 1e6, request.remainingBytes() >> 10));
            }
            return new DrainedCollection(outcome, Duration.ofNanos(drainNanos), Duration.ofNanos(t2 - t1), drained);
        } finally {
            gate.open();
        }
    }
}
