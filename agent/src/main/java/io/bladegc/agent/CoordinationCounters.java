package io.bladegc.agent;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The coordinated mode's event counters, and its GC events' timelines (BLADE Fig. 3) as cumulative sums and counts per
 * phase, in the style of a Prometheus summary: the mean of a phase over an interval is the change of its sum over the
 * change of its count. Thread-safe.
 */
final class CoordinationCounters {
    /** Slots granted by the coordinator. */
    final LongAdder grants = new LongAdder();
    /** GC requests that had to wait in the coordinator's queue (counted once per request, not per poll). */
    final LongAdder queuedWaits = new LongAdder();
    /** GC requests handled without the coordinator (down, slow, refusing): collected locally, single-node. */
    final LongAdder failOpens = new LongAdder();
    /** GC requests withdrawn at the coordinator (the JVM collected on its own first, or a fenced grant). */
    final LongAdder cancels = new LongAdder();
    /** Grants not collected under because their lease would end before the collection could start. */
    final LongAdder fenced = new LongAdder();
    /** Releases the coordinator refused as stale (409: the lease had ended). */
    final LongAdder staleReleases = new LongAdder();
    /** Joins after the coordinator had been down or had forgotten the node. */
    final LongAdder rejoins = new LongAdder();
    /** Switches to another replica of a replicated coordinator (the one the node talked to stopped serving it). */
    final LongAdder failovers = new LongAdder();

    private final LongAdder[] phaseNanos = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
    private final LongAdder[] phaseCounts = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder()};
    private static final String[] PHASES = {"Schedule", "Trailers", "Gc", "Notify"};

    /** Adds one event's timeline; a negative phase did not happen and is not counted. */
    void timeline(GcTimeline t) {
        long[] phases = {t.scheduleNanos(), t.trailersNanos(), t.gcNanos(), t.notifyNanos()};
        for (int i = 0; i < phases.length; i++) {
            if (phases[i] >= 0) {
                phaseNanos[i].add(phases[i]);
                phaseCounts[i].increment();
            }
        }
    }

    void putInto(Map<String, Object> m) {
        m.put("Grants", grants.sum());
        m.put("QueuedWaits", queuedWaits.sum());
        m.put("FailOpens", failOpens.sum());
        m.put("Cancels", cancels.sum());
        m.put("Fenced", fenced.sum());
        m.put("StaleReleases", staleReleases.sum());
        m.put("Rejoins", rejoins.sum());
        m.put("Failovers", failovers.sum());
        for (int i = 0; i < PHASES.length; i++) {
            m.put(PHASES[i] + "MsSum", phaseNanos[i].sum() / 1_000_000.0);
            m.put(PHASES[i] + "Count", phaseCounts[i].sum());
        }
    }
}
