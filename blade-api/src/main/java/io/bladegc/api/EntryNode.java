package io.bladegc.api;

import java.util.Objects;

/**
 * The node a request entry (a servlet filter, a gRPC interceptor) gates with, and how the entry came by it:
 * {@link Blade#joinOrStart(BladeOptions)}. Immutable.
 *
 * @param node   the JVM's node
 * @param joined {@code true} when the node was running already (the agent's, or another entry's: its own options
 *               apply), {@code false} when this entry started it (GCI mode)
 */
public record EntryNode(BladeNode node, boolean joined) {
    /** @throws NullPointerException when {@code node} is null */
    public EntryNode {
        Objects.requireNonNull(node, "node");
    }
}
