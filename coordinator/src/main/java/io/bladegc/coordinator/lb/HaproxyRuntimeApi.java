package io.bladegc.coordinator.lb;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The HAProxy adapter: takes a node's server out of rotation through HAProxy's runtime API (the "stats socket").
 *
 * <p>HAProxy needs a stats socket at admin level, on a unix socket or TCP:
 * <pre>
 * global
 *     stats socket /run/haproxy/admin.sock mode 600 level admin
 *     stats socket ipv4@127.0.0.1:9999 level admin      # or TCP; never on a public address
 * </pre>
 * Each command goes on its own connection in HAProxy's non-interactive mode: one line, then the answer until HAProxy
 * closes the connection. {@code set server <backend>/<server> state drain|maint|ready} answers nothing (an empty
 * line) on success and one line of text on failure ({@code No such server.}, {@code No such backend.},
 * {@code Permission denied}), which becomes a {@link LoadBalancerException}.
 *
 * <p>{@code drain} stops new load-balanced traffic and keeps health checks running; {@code maint} stops all
 * traffic including checks. Requests already sent to the server finish in both states. The default is
 * {@code drain}.
 *
 * <p>Which HAProxy server is which node comes from the configuration ({@link Builder#servers}). Backend and server
 * names are checked at construction against HAProxy's own rule (letters, digits, {@code - _ . :}), so nothing a
 * configuration says can add a second command ({@code ;}), a line break or an argument to the command line.
 *
 * <p>Thread-safe and stateless between calls: every call opens, uses and closes its own connection. Calls for the
 * same node are serialised, so a {@code drain} and a {@code ready} for one node reach HAProxy in the order they were
 * made; calls for different nodes run in parallel.
 */
public final class HaproxyRuntimeApi implements LoadBalancer {

    private static final System.Logger LOG = System.getLogger(HaproxyRuntimeApi.class.getName());

    private static final int DESCRIBE_NODES = 5;

    /** A server's administrative state as HAProxy reports it in its stats ({@code READY}, {@code DRAIN}, {@code MAINT}). */
    public enum AdminState {
        READY, DRAIN, MAINT;

        /** The word of {@code set server ... state <word>}. */
        public String command() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final RuntimeApiEndpoint endpoint;
    private final Map<String, HaproxyServer> servers;
    private final AdminState drainState;
    private final RuntimeApiClient client;

    private HaproxyRuntimeApi(Builder builder) {
        this.endpoint = Objects.requireNonNull(builder.endpoint, "endpoint");
        this.servers = HaproxyServer.mapping(builder.servers);
        if (builder.drainState == AdminState.READY) {
            throw new IllegalArgumentException(
                    "HAProxy drain state must be 'drain' or 'maint' (the state a node is put in while it collects), not 'ready'");
        }
        this.drainState = builder.drainState;
        this.client = new RuntimeApiClient(endpoint, builder.connectTimeout, builder.readTimeout);
    }

    /** @return a builder for an adapter talking to {@code endpoint}; at least one node must be mapped */
    public static Builder builder(RuntimeApiEndpoint endpoint) {
        return new Builder(endpoint);
    }

    /** Shorthand: {@code endpoint} as {@link RuntimeApiEndpoint#parse} reads it, default state and timeouts. */
    public static HaproxyRuntimeApi of(String endpoint, Map<String, String> servers) {
        return builder(RuntimeApiEndpoint.parse(endpoint)).servers(servers).build();
    }

    @Override
    public void drain(String node) {
        change(node, drainState);
    }

    @Override
    public void ready(String node) {
        change(node, AdminState.READY);
    }

    @Override
    public String describe() {
        String nodes = servers.entrySet().stream()
                .limit(DESCRIBE_NODES)
                .map(e -> e.getKey() + " -> " + e.getValue().target())
                .collect(Collectors.joining(", "));
        if (servers.size() > DESCRIBE_NODES) {
            nodes += " and " + (servers.size() - DESCRIBE_NODES) + " more";
        }
        return "HAProxy runtime API at " + endpoint + ": a collecting node's server is set to state "
                + drainState.command() + ", then ready; " + servers.size() + (servers.size() == 1 ? " node (" : " nodes (")
                + nodes + "); timeouts connect " + client.connectTimeout().toMillis() + " ms, read " + client.readTimeout().toMillis() + " ms";
    }

    @Override
    public String toString() {
        return "HaproxyRuntimeApi[" + endpoint + ", " + servers.size() + " nodes, drain state " + drainState.command() + "]";
    }

    /** The nodes this adapter knows, each with its {@code backend/server}, sorted by node. */
    public Map<String, String> servers() {
        Map<String, String> out = new LinkedHashMap<>();
        servers.forEach((node, server) -> out.put(node, server.target()));
        return Collections.unmodifiableMap(out);
    }

    /** Where the runtime API listens. */
    public RuntimeApiEndpoint endpoint() {
        return endpoint;
    }

    /** The state a node's server is put in by {@link #drain}: {@link AdminState#DRAIN} or {@link AdminState#MAINT}. */
    public AdminState drainState() {
        return drainState;
    }

    /**
     * The node's server as HAProxy sees it now, from {@code show servers state <backend>}.
     *
     * @throws LoadBalancerException when the node is not mapped, HAProxy is unreachable, or its answer does not list
     *     the server
     */
    public ServerState serverState(String node) {
        HaproxyServer server = server(node);
        String command = "show servers state " + server.backend();
        String answer = send(node, server, command);
        Map<String, ServerState> states = parse(node, server, command, answer);
        ServerState state = states.get(server.target());
        if (state == null) {
            throw failure(node, server, command, answer.strip(), "does not list server " + server.server(), null);
        }
        return state;
    }

    /**
     * Every mapped node's server as HAProxy sees it now (one {@code show servers state} per backend), by node.
     *
     * @throws LoadBalancerException as {@link #serverState}
     */
    public Map<String, ServerState> serverStates() {
        Map<String, List<String>> nodesByBackend = new TreeMap<>();
        servers.forEach((node, server) -> nodesByBackend.computeIfAbsent(server.backend(), b -> new ArrayList<>()).add(node));
        Map<String, ServerState> out = new TreeMap<>();
        for (List<String> nodes : nodesByBackend.values()) {
            String first = nodes.get(0);
            HaproxyServer firstServer = servers.get(first);
            String command = "show servers state " + firstServer.backend();
            String answer = send(first, firstServer, command);
            Map<String, ServerState> states = parse(first, firstServer, command, answer);
            for (String node : nodes) {
                HaproxyServer server = servers.get(node);
                ServerState state = states.get(server.target());
                if (state == null) {
                    throw failure(node, server, command, answer.strip(), "does not list server " + server.server(), null);
                }
                out.put(node, state);
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private Map<String, ServerState> parse(String node, HaproxyServer server, String command, String answer) {
        try {
            return ServerState.parseAll(answer);
        } catch (IllegalArgumentException e) {
            throw failure(node, server, command, answer.strip(), e.getMessage(), e);
        }
    }

    private void change(String node, AdminState state) {
        HaproxyServer server = server(node);
        String command = "set server " + server.target() + " state " + state.command();
        synchronized (server) {
            String answer = send(node, server, command).strip();
            if (!answer.isEmpty()) {
                String hint = answer.contains("Permission denied")
                        ? " (the stats socket needs 'level admin')" : "";
                throw failure(node, server, command, answer, "answered: " + LoadBalancerException.oneLine(answer) + hint, null);
            }
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "HAProxy " + endpoint + ": node " + node + ": " + command);
    }

    private HaproxyServer server(String node) {
        Objects.requireNonNull(node, "node");
        HaproxyServer server = servers.get(node);
        if (server == null) {
            throw new LoadBalancerException("HAProxy runtime API at " + endpoint + ": node '" + node
                    + "' has no HAProxy server in the configuration (mapped nodes: " + String.join(", ", servers.keySet())
                    + ")", node, null, null, null);
        }
        return server;
    }

    private String send(String node, HaproxyServer server, String command) {
        try {
            return client.exchange(command);
        } catch (ClosedByInterruptException e) {
            InterruptedIOException interrupted = new InterruptedIOException("interrupted");
            interrupted.initCause(e);
            throw failure(node, server, command, null, "failed: interrupted", interrupted);
        } catch (IOException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw failure(node, server, command, null, "failed: " + why, e);
        }
    }

    private LoadBalancerException failure(String node, HaproxyServer server, String command, String answer, String what,
                                          Throwable cause) {
        return new LoadBalancerException("HAProxy runtime API at " + endpoint + ": node '" + node + "' (" + server.target()
                + "): '" + command + "' " + what, node, command, answer, cause);
    }

    /** Configuration of a {@link HaproxyRuntimeApi}; validated by {@link #build}. */
    public static final class Builder {
        private final RuntimeApiEndpoint endpoint;
        private final Map<String, String> servers = new LinkedHashMap<>();
        private AdminState drainState = AdminState.DRAIN;
        private Duration connectTimeout = Duration.ofSeconds(1);
        private Duration readTimeout = Duration.ofSeconds(2);

        private Builder(RuntimeApiEndpoint endpoint) {
            this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        }

        /** Adds node id -> {@code backend/server} entries. */
        public Builder servers(Map<String, String> mapping) {
            mapping.forEach(this::server);
            return this;
        }

        /** Maps node id {@code node} to HAProxy server {@code backend/server}; checked by {@link #build}. */
        public Builder server(String node, String backendSlashServer) {
            Objects.requireNonNull(node, "node id");
            servers.put(node, backendSlashServer);
            return this;
        }

        /** {@link AdminState#DRAIN} (default) or {@link AdminState#MAINT}. */
        public Builder drainState(AdminState state) {
            this.drainState = Objects.requireNonNull(state, "drain state");
            return this;
        }

        /** Bound on establishing the connection (default 1 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /** Bound on the whole exchange once connected: sending the command and reading the answer (default 2 s). */
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = timeout;
            return this;
        }

        /** @throws IllegalArgumentException naming the first bad entry or setting */
        public HaproxyRuntimeApi build() {
            return new HaproxyRuntimeApi(this);
        }
    }
}
