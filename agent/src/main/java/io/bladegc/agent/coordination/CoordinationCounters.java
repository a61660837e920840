package io.bladegc.agent.coordination;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the coordinator client and the membership count, beside the grant-holder's own counters. Thread-safe.
 */
final class CoordinationCounters {
    /** Joins after the coordinator had been down or had forgotten the node. */
    final LongAdder rejoins = new LongAdder();
    /** Switches to another replica of a replicated coordinator (the one the node talked to stopped serving it). */
    final LongAdder failovers = new LongAdder();
    /** Releases sent again after the coordinator came back, and refused as stale (the lease had ended meanwhile). */
    final LongAdder staleLateReleases = new LongAdder();
    /** Young collections the node asked for early, invited because it would come due during another's full one. */
    final LongAdder invitations = new LongAdder();

    void putInto(Map<String, Object> m) {
        m.put("Rejoins", rejoins.sum());
        m.put("Failovers", failovers.sum());
        m.put("StaleLateReleases", staleLateReleases.sum());
        m.put("Invitations", invitations.sum());
    }
}
