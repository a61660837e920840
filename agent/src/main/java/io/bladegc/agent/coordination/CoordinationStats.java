package io.bladegc.agent.coordination;

import io.bladegc.api.jmx.StatsMBean;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The coordinated mode's counters as the read-only platform MBean {@value #NAME}, beside the node's own
 * {@code io.bladegc:type=Node}: {@code Coordinator} (every replica, joined by {@code |}), {@code CoordinatorReplica}
 * (the replica the node talks to), {@code NodeId}, {@code CoordinatorUp}, {@code Grants}, {@code QueuedWaits},
 * {@code FailOpens}, {@code Cancels}, {@code Overtaken}, {@code Unscheduled}, {@code Fenced}, {@code StaleReleases},
 * {@code Rejoins}, {@code Failovers}, {@code Invitations}, {@code LastEvent} (the last GC event's log line). JDK types only.
 *
 * <p>Thread-safe (reads a thread-safe supplier).
 */
final class CoordinationStats {
    static final String NAME = "io.bladegc:type=Coordination";

    private CoordinationStats() {
    }

    /** @return whether it was published (not when another copy published it first) */
    static boolean publish(Supplier<Map<String, Object>> stats) {
        return new StatsMBean("Blade coordinated mode", stats, Map.of()).publish(NAME);
    }

    static void unpublish() {
        StatsMBean.unpublish(NAME);
    }
}
