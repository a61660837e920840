package io.bladegc.api.grant;

import java.time.Duration;

/**
 * How a {@link GrantHolder} waits and when it gives up. Immutable.
 *
 * @param margin       kept before the lease end, for what is not measured: a grant whose lease leaves less than the
 *                     node's drain timeout ({@link io.bladegc.api.BladeNode#drainTimeout()}), the expected pause and
 *                     the margin is not collected under (fenced)
 * @param fallbackLead the lead time sent while the heap watcher has no prediction yet
 * @param maxWait      the longest the ledger may hold one {@code acquire} before answering {@code QUEUED}
 * @param callBound    the longest one {@code acquire} may be out, whatever the port does: then it counts as failed
 * @param firstLead    the schedule lead the node asks for before the first collection was timed (then: the recent
 *                     worst time from the upcall to the grant)
 * @param failOpen     what the holder does when the ledger cannot be asked or fails: {@code true} collects at once,
 *                     drained, as a single node does (HTTP: a node out of the load balancer's care is still better
 *                     drained); {@code false} leaves the collection to the JVM (Raft: a collection without a grant
 *                     may cost the group its majority, whoever starts it)
 * @param leaveUnplannable whether a young collection whose grant cannot come in time is left to the JVM (HTTP:
 *                     {@code true}) or asked for at half eden (Raft: {@code false}; see
 *                     {@link io.bladegc.api.GcHandler#leavesUnplannableToJvm()})
 */
public record HolderSettings(Duration margin, Duration fallbackLead, Duration maxWait,
                             Duration callBound, Duration firstLead, boolean failOpen,
                             boolean leaveUnplannable) {
    public HolderSettings {
        for (Duration d : new Duration[] {margin, fallbackLead, maxWait, callBound, firstLead}) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException("durations must not be negative: " + d);
            }
        }
    }
}
