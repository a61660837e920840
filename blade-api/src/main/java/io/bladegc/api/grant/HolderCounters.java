package io.bladegc.api.grant;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a {@link GrantHolder} did, as counters, and its GC events' timelines (BLADE Fig. 3) as cumulative sums and
 * counts per phase, in the style of a Prometheus summary: the mean of a phase over an interval is the change of its
 * sum over the change of its count. The same set for the HTTP cluster and for Raft peers. Thread-safe.
 */
final class HolderCounters {
    /** Slots granted. */
    final LongAdder grants = new LongAdder();
    /** Collections run under a grant. */
    final LongAdder collections = new LongAdder();
    /** GC requests that had to wait in the ledger's queue (counted once per request, not per poll). */
    final LongAdder queuedWaits = new LongAdder();
    /** GC requests handled without the ledger (down, slow, refusing): collected at once or left to the JVM. */
    final LongAdder failOpens = new LongAdder();
    /** GC requests withdrawn at the ledger (the JVM collected on its own first, a fenced grant, re-elected). */
    final LongAdder cancels = new LongAdder();
    /** GC requests the JVM overtook: it collected on its own while the node asked, queued or waited for the grant. */
    final LongAdder overtaken = new LongAdder();
    /** GC requests the coordinator left to the JVM: it had stepped down, the schedule not keeping up. */
    final LongAdder unscheduled = new LongAdder();
    /** Grants not collected under because their lease would end before the collection could end. */
    final LongAdder fenced = new LongAdder();
    /** Releases the ledger refused as stale (the lease had ended). */
    final LongAdder staleReleases = new LongAdder();
    /** Leaderships handed off before a collection (Raft). */
    final LongAdder handOffs = new LongAdder();
    /** Hand-offs that did not complete in time: the node then did not collect (Raft). */
    final LongAdder handOffFailures = new LongAdder();
    /** Leader collections without a hand-off, their pauses measured short enough (Raft). */
    final LongAdder inPlace = new LongAdder();
    /** Requests moved earlier, once, after one that queued behind another node's collection. */
    final LongAdder shifts = new LongAdder();
    /** Young requests that offered a full collection in their place. */
    final LongAdder fullOffers = new LongAdder();
    /** Full collections run in place of a young one, the ledger having found room for them. */
    final LongAdder fullsInstead = new LongAdder();

    private final LongAdder[] phaseNanos = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(),
        new LongAdder()};
    private final LongAdder[] phaseCounts = {new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(),
        new LongAdder()};
    private static final String[] PHASES = {"HandOff", "Schedule", "Trailers", "Gc", "Notify"};

    /** Adds one event's timeline; a negative phase did not happen and is not counted. */
    void timeline(GcTimeline t) {
        long handOff = t.prepared().kind() == Prepared.Kind.HANDED_OFF ? t.prepared().nanos() : -1;
        long[] phases = {handOff, t.scheduleNanos(), t.trailersNanos(), t.gcNanos(), t.notifyNanos()};
        for (int i = 0; i < phases.length; i++) {
            if (phases[i] >= 0) {
                phaseNanos[i].add(phases[i]);
                phaseCounts[i].increment();
            }
        }
    }

    void putInto(Map<String, Object> m) {
        m.put("Grants", grants.sum());
        m.put("Collections", collections.sum());
        m.put("QueuedWaits", queuedWaits.sum());
        m.put("FailOpens", failOpens.sum());
        m.put("Cancels", cancels.sum());
        m.put("Overtaken", overtaken.sum());
        m.put("Unscheduled", unscheduled.sum());
        m.put("Fenced", fenced.sum());
        m.put("StaleReleases", staleReleases.sum());
        m.put("HandOffs", handOffs.sum());
        m.put("HandOffFailures", handOffFailures.sum());
        m.put("InPlace", inPlace.sum());
        m.put("Shifts", shifts.sum());
        m.put("FullOffers", fullOffers.sum());
        m.put("FullsInstead", fullsInstead.sum());
        for (int i = 0; i < PHASES.length; i++) {
            m.put(PHASES[i] + "MsSum", phaseNanos[i].sum() / 1_000_000.0);
            m.put(PHASES[i] + "Count", phaseCounts[i].sum());
        }
    }
}
