package io.bladegc.agent;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The coordinated mode's event counters. Thread-safe. */
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

    void putInto(Map<String, Object> m) {
        m.put("Grants", grants.sum());
        m.put("QueuedWaits", queuedWaits.sum());
        m.put("FailOpens", failOpens.sum());
        m.put("Cancels", cancels.sum());
        m.put("Fenced", fenced.sum());
        m.put("StaleReleases", staleReleases.sum());
        m.put("Rejoins", rejoins.sum());
    }
}
