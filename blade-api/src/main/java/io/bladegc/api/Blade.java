package io.bladegc.api;

import java.lang.System.Logger.Level;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
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

    /**
     * The class of the nodes Blade starts. Its package builds on this one, so Blade finds it by name, in its own class
     * loader and under its own package (which the agent relocates), rather than depending on it back.
     */
    private static final String LOCAL_NODE = Blade.class.getPackageName() + ".internal.LocalNode";

    private static StartedNode started;

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
        StartedNode node = startLocal(options);
        if (NodeChannel.publish(node, node::stats)) {
            started = node;
            return node;
        }
        node.stop();
        return node().orElseThrow(() -> new IllegalStateException("a Blade node was published and vanished"));
    }

    /**
     * The node a request entry (a servlet filter, a gRPC interceptor) gates with: the node running in this JVM (the
     * agent's, or another entry's), else a new one with the given options (GCI mode). None when the Blade agent is
     * attached but left Blade off ({@link #AGENT_OFF_PROPERTY}): its options were refused or turned Blade off, and a
     * node of the entry's own would run Blade against them, so the entry passes everything through. The entry then
     * attaches to the node's gate ({@link BladeNode#attachGate()}).
     *
     * @param options settings for a new node; ignored when one runs
     * @return the node and whether it was running already; empty when the agent left Blade off
     * @throws RuntimeException as {@link #startNode} throws it
     */
    public static Optional<EntryNode> joinOrStart(BladeOptions options) {
        Optional<BladeNode> running = node();
        if (running.isPresent()) {
            return Optional.of(new EntryNode(running.get(), true));
        }
        if (System.getProperty(AGENT_OFF_PROPERTY) != null) {
            return Optional.empty();
        }
        return Optional.of(new EntryNode(startNode(options), false));
    }

    /**
     * Attaches a request entry that has no settings of its own but the Blade options (a gRPC interceptor, a Netty
     * handler) to the node {@link #joinOrStart} finds or starts, and says so in one line on the entry's logger
     * ({@code INFO}). Never throws for the node: {@code enabled=false} ({@code INFO}), an agent that left Blade off or
     * a node that cannot start ({@code WARNING}) leave the entry a pass-through, said in that one line.
     *
     * @param options settings for a new node; ignored, but for {@code enabled}, when a node runs already
     * @param log     the entry's logger
     * @param entry   how the line names the entry, e.g. {@code "Blade gRPC interceptor"}
     * @param unit    what a pass-through passes on, singular, e.g. {@code "call"}
     * @return the node whose gate the entry attached to ({@link BladeNode#attachGate()}); empty for a pass-through
     * @throws NullPointerException when {@code options} is null
     */
    public static Optional<BladeNode> attachEntry(BladeOptions options, System.Logger log, String entry,
                                                  String unit) {
        Objects.requireNonNull(options, "options");
        String where = entry + ": ";
        String passing = "passing every " + unit + " through";
        if (!options.enabled()) {
            log.log(Level.INFO, where + "disabled by enabled=false; " + passing);
            return Optional.empty();
        }
        try {
            Optional<EntryNode> found = joinOrStart(options);
            if (found.isEmpty()) {
                log.log(Level.WARNING, where + "the Blade agent in this JVM is off ("
                    + System.getProperty(AGENT_OFF_PROPERTY) + "); " + passing);
                return Optional.empty();
            }
            BladeNode n = found.get().node();
            n.attachGate();
            log.log(Level.INFO, where + (found.get().joined() ? "joined the running Blade node"
                : "started a Blade node (GCI mode)") + "; " + n.summary());
            return Optional.of(n);
        } catch (RuntimeException | LinkageError e) {
            log.log(Level.WARNING, where + "cannot reach or start the Blade node (" + e + "); " + passing, e);
            return Optional.empty();
        }
    }

    /** Stops the node this copy of Blade started, if any; a node started by another copy is left alone. */
    public static synchronized void stopNode() {
        if (started != null) {
            NodeChannel.unpublish();
            started.stop();
            started = null;
        }
    }

    /** Calls {@code LocalNode.start(options)}; what it throws is thrown as it is. */
    private static StartedNode startLocal(BladeOptions options) {
        Method start;
        try {
            start = Class.forName(LOCAL_NODE, true, Blade.class.getClassLoader())
                .getMethod("start", BladeOptions.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("blade-api is incomplete: " + LOCAL_NODE, e);
        }
        try {
            return (StartedNode) start.invoke(null, options);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("blade-api is incomplete: " + LOCAL_NODE, e);
        }
    }
}
