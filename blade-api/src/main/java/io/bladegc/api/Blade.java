package io.bladegc.api;

import io.bladegc.api.internal.LocalNode;
import java.util.Map;
import java.util.Optional;

/**
 * Entry point: find the Blade node of this JVM, or start one.
 *
 * <p>There is at most one node per JVM, whoever started it: the {@code -javaagent}, or the first servlet filter
 * that found none (GCI mode). Copies of Blade in other class loaders reach it through a JDK-level channel (a platform
 * MBean named {@code io.bladegc:type=Node}), so a webapp with its own {@code blade-api} jar and the agent share one
 * heap watcher and one gate.
 *
 * <p>Thread-safe.
 */
public final class Blade {
    /**
     * The system property the Blade agent sets when it is attached but Blade stays off in this JVM (options refused,
     * {@code enabled=false}, or a failure to start); its value says why, in one short line. A Blade filter that finds
     * it passes every request through rather than starting a node of its own: the user's configuration turned Blade
     * off or was refused, and a node with default options would be Blade running against it.
     */
    public static final String AGENT_OFF_PROPERTY = "io.bladegc.agent.off";

    private static LocalNode started;

    private Blade() {
    }

    /** @return the node running in this JVM, if any */
    public static Optional<BladeNode> node() {
        Map<String, Object> ch = NodeChannel.lookup();
        if (ch == null) {
            return Optional.empty();
        }
        Object node = ch.get("node");
        return Optional.of(node instanceof BladeNode ? (BladeNode) node : new ChannelNode(ch));
    }

    /**
     * Returns the node running in this JVM, starting one with the given options when there is none. Options are
     * ignored when a node already runs.
     *
     * @param options settings for a new node
     * @return the JVM's node
     */
    public static synchronized BladeNode startNode(BladeOptions options) {
        Optional<BladeNode> existing = node();
        if (existing.isPresent()) {
            return existing.get();
        }
        LocalNode node = LocalNode.start(options);
        if (NodeChannel.publish(node, node::stats)) {
            started = node;
            return node;
        }
        node.stop();
        return node().orElseThrow(() -> new IllegalStateException("a Blade node was published and vanished"));
    }

    /** Stops the node this copy of Blade started, if any; a node started by another copy is left alone. */
    public static synchronized void stopNode() {
        if (started != null) {
            NodeChannel.unpublish();
            started.stop();
            started = null;
        }
    }
}
