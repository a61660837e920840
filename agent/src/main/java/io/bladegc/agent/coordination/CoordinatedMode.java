package io.bladegc.agent.coordination;

import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.grant.GrantHolder;
import io.bladegc.api.grant.HolderSettings;
import io.bladegc.api.grant.Preparation;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The agent's cluster mode, wired: the {@link CoordinatorClient}, the {@link Membership} (heartbeat thread), a
 * {@link GrantHolder} over the {@link CoordinatorPort} registered as the node's upcall handler (thread
 * {@value #THREAD_NAME}), and the {@link CoordinationStats} MBean. Started by {@link io.bladegc.agent.BladeAgent}
 * when the {@code coordinator} option is set. Starting does no I/O on the caller's thread: the first join runs on the
 * heartbeat thread, so a coordinator that is down never delays the application's start; until the node has joined,
 * it collects on its own.
 *
 * <p>Thread-safe.
 */
public final class CoordinatedMode implements AutoCloseable {
    static final String THREAD_NAME = "blade-coordination";
    /** The coordinator's default longest long poll ({@code --max-wait}); above it an acquire is refused. */
    static final Duration MAX_WAIT = Duration.ofSeconds(60);

    private final BladeNode node;
    private final BladeOptions options;
    private final CoordinatorClient client;
    private final Membership membership;
    private final CoordinationCounters counters;
    private final GrantHolder holder;
    private final boolean published;

    private CoordinatedMode(BladeNode node, BladeOptions options, CoordinatorClient client, Membership membership,
                            CoordinationCounters counters, GrantHolder holder, boolean published) {
        this.node = node;
        this.options = options;
        this.client = client;
        this.membership = membership;
        this.counters = counters;
        this.holder = holder;
        this.published = published;
    }

    /**
     * Starts the coordinated mode on a node as the agent does: a heartbeat every
     * {@link Membership#HEARTBEAT_INTERVAL}, and the node leaves the cluster when the JVM exits.
     *
     * @param node    the JVM's node
     * @param options options with a {@link BladeOptions#coordinator()}
     * @param log     where the mode logs
     * @return the running mode
     * @throws IllegalArgumentException when the options name no coordinator
     */
    public static CoordinatedMode start(BladeNode node, BladeOptions options, System.Logger log) {
        return start(node, options, log, Membership.HEARTBEAT_INTERVAL, true);
    }

    /**
     * Starts the coordinated mode on a node.
     *
     * @param node         the JVM's node
     * @param options      options with a {@link BladeOptions#coordinator()}
     * @param log          where the mode logs
     * @param heartbeat    how often to heartbeat ({@link Membership#HEARTBEAT_INTERVAL} in the agent)
     * @param shutdownHook whether to leave the cluster when the JVM exits
     */
    static CoordinatedMode start(BladeNode node, BladeOptions options, System.Logger log, Duration heartbeat,
                                 boolean shutdownHook) {
        if (!options.coordinated()) {
            throw new IllegalArgumentException("no coordinator configured");
        }
        CoordinationCounters counters = new CoordinationCounters();
        CoordinatorClient client = new CoordinatorClient(options.coordinators(), options.nodeId(), options.token(),
            options.coordinatorTimeout(), counters, log);
        Membership membership = new Membership(client, options.nodeId(), heartbeat, () -> Heartbeat.of(node), () -> {
            if (node.collectEarly()) {
                counters.invitations.increment();
            }
        }, counters, log);
        GrantHolder holder = new GrantHolder(node, new CoordinatorPort(client, membership), Preparation.NONE,
            settings(options), THREAD_NAME, "", log);
        holder.start();
        node.register(holder);
        membership.start();
        boolean published;
        try {
            published = CoordinationStats.publish(() -> stats(options, client, membership, counters, holder));
        } catch (RuntimeException e) {
            published = false; // counters stay readable through the log lines
        }
        CoordinatedMode mode = new CoordinatedMode(node, options, client, membership, counters, holder, published);
        if (shutdownHook) {
            Runtime.getRuntime().addShutdownHook(new Thread(mode::close, "blade-leave"));
        }
        return mode;
    }

    /** @return the settings for the start-up line; never the token */
    public String describe() {
        return "coordinator=" + options.coordinatorsText() + ", node id=" + options.nodeId() + ", coordinator timeout="
            + options.coordinatorTimeout().toMillis() + " ms, token " + (options.token() == null ? "none" : "set");
    }

    /**
     * The holder's waits: acquires held at most half the coordinator timeout (and never longer than the coordinator's
     * default longest poll), each call bounded by the coordinator timeout plus {@link CoordinatorClient#GRACE}, so that
     * with the coordinator down, slow or black-holed a collection starts no later than that after the upcall; fail
     * open (collect locally, drained); a young collection whose grant cannot come in time is left to the JVM.
     */
    static HolderSettings settings(BladeOptions options) {
        Duration timeout = options.coordinatorTimeout();
        Duration fallbackLead = options.margin().plus(options.sampleInterval().multipliedBy(2));
        Duration maxWait = timeout.dividedBy(2).compareTo(MAX_WAIT) < 0 ? timeout.dividedBy(2) : MAX_WAIT;
        return new HolderSettings(options.margin(),
            fallbackLead.isZero() ? Duration.ofMillis(1) : fallbackLead, maxWait, timeout.plus(CoordinatorClient.GRACE),
            Duration.ZERO, true, true);
    }

    static Map<String, Object> stats(BladeOptions options, CoordinatorClient client, Membership membership,
                                             CoordinationCounters counters, GrantHolder holder) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("Coordinator", options.coordinatorsText());
        m.put("CoordinatorReplica", client.replica().toString());
        m.put("NodeId", options.nodeId());
        m.put("CoordinatorUp", membership.isUp());
        m.putAll(holder.stats());
        counters.putInto(m);
        return m;
    }

    /** @return the holder's and the client's counters and state; JDK types only */
    Map<String, Object> stats() {
        return stats(options, client, membership, counters, holder);
    }

    GrantHolder holder() {
        return holder;
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
        holder.close();
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
