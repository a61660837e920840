package io.bladegc.agent;

import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import java.time.Duration;
import java.util.Map;

/**
 * The agent's cluster mode, wired: the {@link CoordinatorClient}, the {@link Membership} (heartbeat thread), the
 * {@link CoordinatedHandler} registered as the node's upcall handler (coordination thread), and the
 * {@link CoordinationStats} MBean. Started by {@link BladeAgent} when the {@code coordinator} option is set. Starting
 * does no I/O on the caller's thread: the first join runs on the heartbeat thread, so a coordinator that is down
 * never delays the application's start; until the node has joined, it collects on its own.
 *
 * <p>Thread-safe.
 */
final class CoordinatedMode implements AutoCloseable {
    private final BladeNode node;
    private final BladeOptions options;
    private final CoordinatorClient client;
    private final Membership membership;
    private final CoordinatedHandler handler;
    private final boolean published;

    private CoordinatedMode(BladeNode node, BladeOptions options, CoordinatorClient client, Membership membership,
                            CoordinatedHandler handler, boolean published) {
        this.node = node;
        this.options = options;
        this.client = client;
        this.membership = membership;
        this.handler = handler;
        this.published = published;
    }

    /**
     * Starts the coordinated mode on a node.
     *
     * @param node         the JVM's node
     * @param options      options with a {@link BladeOptions#coordinator()}
     * @param log          where the mode logs
     * @param probe        the node's collection count and lead time ({@link NodeProbe#fromNodeMBean()} in the agent)
     * @param heartbeat    how often to heartbeat ({@link Membership#HEARTBEAT_INTERVAL} in the agent)
     * @param shutdownHook whether to leave the cluster when the JVM exits
     */
    static CoordinatedMode start(BladeNode node, BladeOptions options, System.Logger log, NodeProbe probe,
                                 Duration heartbeat, boolean shutdownHook) {
        if (!options.coordinated()) {
            throw new IllegalArgumentException("no coordinator configured");
        }
        CoordinationCounters counters = new CoordinationCounters();
        CoordinatorClient client = new CoordinatorClient(options.coordinators(), options.nodeId(), options.token(),
            options.coordinatorTimeout(), counters, log);
        Membership membership = new Membership(client, options.nodeId(), heartbeat, counters, log);
        CoordinatedHandler handler = new CoordinatedHandler(node, client, membership, counters, probe, options, log);
        handler.start();
        node.register(handler);
        membership.start();
        boolean published;
        try {
            published = CoordinationStats.publish(handler::stats);
        } catch (RuntimeException e) {
            published = false; // counters stay readable through the log lines
        }
        CoordinatedMode mode = new CoordinatedMode(node, options, client, membership, handler, published);
        if (shutdownHook) {
            Runtime.getRuntime().addShutdownHook(new Thread(mode::close, "blade-leave"));
        }
        return mode;
    }

    /** @return the settings for the start-up line; never the token */
    String describe() {
        return "coordinator=" + options.coordinatorsText() + ", node id=" + options.nodeId() + ", coordinator timeout="
            + options.coordinatorTimeout().toMillis() + " ms, token " + (options.token() == null ? "none" : "set");
    }

    /** @return the handler's counters and state */
    Map<String, Object> stats() {
        return handler.stats();
    }

    CoordinatedHandler handler() {
        return handler;
    }

    Membership membership() {
        return membership;
    }

    /** Gives the node back its default handler, stops the threads, and leaves the cluster (bounded). */
    @Override
    public void close() {
        try {
            node.register(null);
        } catch (RuntimeException e) {
            // the node is going away too
        }
        handler.close();
        membership.close();
        client.close();
        if (published) {
            try {
                CoordinationStats.unpublish();
            } catch (RuntimeException e) {
                // nothing to do at exit
            }
        }
    }
}
