package io.bladegc.agent.coordination;

import io.bladegc.api.BladeNode;

/**
 * What a heartbeat tells the coordinator about the node, each -1 when unknown.
 *
 * @param dueInMillis     the time left before the JVM collects on its own ({@link BladeNode#dueInMillis()})
 * @param fullDueInMillis the same for its next full collection ({@link BladeNode#fullDueInMillis()})
 * @param escaped         the collections the JVM ran on its own while Blade meant to plan them, since the node started
 *                        ({@link BladeNode#escapedCollections()}): the coordinator steps down when many escape
 * @param allocationRate  how fast the application allocates, bytes per second ({@link BladeNode#allocationRate()}):
 *                        the coordinator tries hiding again at once when the members' sum fell
 */
record Heartbeat(long dueInMillis, long fullDueInMillis, long escaped, long allocationRate) {
    /** A heartbeat that tells nothing but that the node is alive. */
    static final Heartbeat ALIVE = new Heartbeat(-1, -1, -1, -1);

    /** @return what {@code node} tells now */
    static Heartbeat of(BladeNode node) {
        return new Heartbeat(node.dueInMillis(), node.fullDueInMillis(), node.escapedCollections(),
            node.allocationRate());
    }
}
