package io.bladegc.agent.coordination;

import io.bladegc.api.BladeNode;

/**
 * What a heartbeat tells the coordinator about the node, each -1 when unknown.
 *
 * @param dueInMillis     the time left before the JVM collects on its own ({@link BladeNode#dueInMillis()})
 * @param fullDueInMillis the same for its next full collection ({@link BladeNode#fullDueInMillis()})
 */
record Heartbeat(long dueInMillis, long fullDueInMillis) {
    /** A heartbeat that tells nothing but that the node is alive. */
    static final Heartbeat ALIVE = new Heartbeat(-1, -1);

    /** @return what {@code node} tells now */
    static Heartbeat of(BladeNode node) {
        return new Heartbeat(node.dueInMillis(), node.fullDueInMillis());
    }
}
