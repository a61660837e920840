package io.bladegc.ratis;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What Blade did on one Raft peer since it started. Thread-safe. */
final class RaftBladeCounters {
    /** Leaderships handed off before a collection. */
    final LongAdder transfers = new LongAdder();
    /** Hand-offs that did not complete in time (the peer then did not collect). */
    final LongAdder transferFailures = new LongAdder();
    /** Leader collections without a hand-off (the pause cheaper than a hand-off). */
    final LongAdder inPlace = new LongAdder();
    /** Collections under a grant. */
    final LongAdder collections = new LongAdder();
    /** Requests withdrawn (the JVM collected first, the wait ran out, re-elected, too little lease). */
    final LongAdder cancelled = new LongAdder();
    /** Grants not used because too little of the lease was left. */
    final LongAdder fenced = new LongAdder();
    /** Releases the ledger refused (the lease had ended; the peer may have been lost as a member too). */
    final LongAdder staleReleases = new LongAdder();
    /** Calls to the slot group that failed (no leader, unreachable). */
    final LongAdder unavailable = new LongAdder();

    Map<String, Long> snapshot() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("transfers", transfers.sum());
        m.put("transferFailures", transferFailures.sum());
        m.put("inPlace", inPlace.sum());
        m.put("collections", collections.sum());
        m.put("cancelled", cancelled.sum());
        m.put("fenced", fenced.sum());
        m.put("staleReleases", staleReleases.sum());
        m.put("unavailable", unavailable.sum());
        return m;
    }
}
