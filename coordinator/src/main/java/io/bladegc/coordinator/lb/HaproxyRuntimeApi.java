package io.bladegc.coordinator.lb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
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

    /** HAProxy's rule for proxy and server names (configuration manual, section 4). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]+");

    /** Upper bound on an answer; {@code show servers state} is about 150 bytes per server. */
    static final int MAX_ANSWER_BYTES = 4 << 20;

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
    private final Map<String, Server> servers;
    private final AdminState drainState;
    private final Duration connectTimeout;
    private final Duration readTimeout;

    private HaproxyRuntimeApi(Builder builder) {
        this.endpoint = Objects.requireNonNull(builder.endpoint, "endpoint");
        this.servers = validate(builder.servers);
        if (builder.drainState == AdminState.READY) {
            throw new IllegalArgumentException(
                    "HAProxy drain state must be 'drain' or 'maint' (the state a node is put in while it collects), not 'ready'");
        }
        this.drainState = builder.drainState;
        this.connectTimeout = positive(builder.connectTimeout, "connect timeout");
        this.readTimeout = positive(builder.readTimeout, "read timeout");
    }

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
                + nodes + "); timeouts connect " + connectTimeout.toMillis() + " ms, read " + readTimeout.toMillis() + " ms";
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
        Server server = server(node);
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
            Server firstServer = servers.get(first);
            String command = "show servers state " + firstServer.backend();
            String answer = send(first, firstServer, command);
            Map<String, ServerState> states = parse(first, firstServer, command, answer);
            for (String node : nodes) {
                Server server = servers.get(node);
                ServerState state = states.get(server.target());
                if (state == null) {
                    throw failure(node, server, command, answer.strip(), "does not list server " + server.server(), null);
                }
                out.put(node, state);
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private Map<String, ServerState> parse(String node, Server server, String command, String answer) {
        try {
            return parseServersState(answer);
        } catch (IllegalArgumentException e) {
            throw failure(node, server, command, answer.strip(), e.getMessage(), e);
        }
    }

    private void change(String node, AdminState state) {
        Server server = server(node);
        String command = "set server " + server.target() + " state " + state.command();
        synchronized (server) {
            String answer = send(node, server, command).strip();
            if (!answer.isEmpty()) {
                String hint = answer.contains("Permission denied")
                        ? " (the stats socket needs 'level admin')" : "";
                throw failure(node, server, command, answer, "answered: " + oneLine(answer) + hint, null);
            }
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "HAProxy " + endpoint + ": node " + node + ": " + command);
    }

    private Server server(String node) {
        Objects.requireNonNull(node, "node");
        Server server = servers.get(node);
        if (server == null) {
            throw new LoadBalancerException("HAProxy runtime API at " + endpoint + ": node '" + node
                    + "' has no HAProxy server in the configuration (mapped nodes: " + String.join(", ", servers.keySet())
                    + ")", node, null, null, null);
        }
        return server;
    }

    private String send(String node, Server server, String command) {
        try {
            return exchange(command);
        } catch (ClosedByInterruptException e) {
            InterruptedIOException interrupted = new InterruptedIOException("interrupted");
            interrupted.initCause(e);
            throw failure(node, server, command, null, "failed: interrupted", interrupted);
        } catch (IOException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw failure(node, server, command, null, "failed: " + why, e);
        }
    }

    private LoadBalancerException failure(String node, Server server, String command, String answer, String what,
                                          Throwable cause) {
        return new LoadBalancerException("HAProxy runtime API at " + endpoint + ": node '" + node + "' (" + server.target()
                + "): '" + command + "' " + what, node, command, answer, cause);
    }

    /**
     * Sends one command line and returns HAProxy's whole answer (read until it closes the connection). Package-private:
     * the public surface only sends commands built from validated names.
     */
    String exchange(String command) throws IOException {
        if (command.indexOf('\n') >= 0 || command.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("one command line only");
        }
        byte[] line = (command + "\n").getBytes(StandardCharsets.US_ASCII);
        try (SocketChannel channel = endpoint.open(); Selector selector = Selector.open()) {
            channel.configureBlocking(false);
            SelectionKey key = channel.register(selector, 0);
            long connectDeadline = System.nanoTime() + connectTimeout.toNanos();
            try {
                if (!channel.connect(endpoint.address())) {
                    key.interestOps(SelectionKey.OP_CONNECT);
                    while (!channel.finishConnect()) {
                        await(selector, connectDeadline, connectTimeout, "connecting");
                    }
                }
            } catch (InterruptedIOException e) {
                throw e;
            } catch (IOException e) {
                throw new IOException("cannot connect: " + e.getMessage(), e);
            }
            long deadline = System.nanoTime() + readTimeout.toNanos();
            ByteBuffer out = ByteBuffer.wrap(line);
            key.interestOps(SelectionKey.OP_WRITE);
            while (out.hasRemaining()) {
                if (channel.write(out) == 0) {
                    await(selector, deadline, readTimeout, "sending the command");
                }
            }
            key.interestOps(SelectionKey.OP_READ);
            ByteArrayOutputStream answer = new ByteArrayOutputStream(256);
            ByteBuffer in = ByteBuffer.allocate(8192);
            while (true) {
                in.clear();
                int n = channel.read(in);
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    await(selector, deadline, readTimeout, "waiting for the answer (HAProxy closes the connection after it)");
                    continue;
                }
                if (answer.size() + n > MAX_ANSWER_BYTES) {
                    throw new IOException("answer longer than " + MAX_ANSWER_BYTES + " bytes");
                }
                answer.write(in.array(), 0, n);
            }
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    private static void await(Selector selector, long deadline, Duration timeout, String what) throws IOException {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            throw new SocketTimeoutException("timed out after " + timeout.toMillis() + " ms " + what);
        }
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
        selector.selectedKeys().clear();
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("interrupted while " + what);
        }
    }

    /**
     * Parses {@code show servers state}: a format version line, a header line {@code # be_id be_name ...} naming
     * the columns, then one line per server. Columns are found by name, so later format versions that add columns
     * still parse. Keys are {@code backend/server}.
     */
    static Map<String, ServerState> parseServersState(String answer) {
        List<String> lines = answer.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.toList());
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("answered nothing");
        }
        if (!lines.get(0).matches("\\d+")) {
            throw new IllegalArgumentException("answered: " + oneLine(answer.strip()));
        }
        int backendCol = -1;
        int serverCol = -1;
        int opCol = -1;
        int adminCol = -1;
        Map<String, ServerState> out = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.startsWith("#")) {
                List<String> header = Arrays.asList(line.substring(1).strip().split("\\s+"));
                backendCol = header.indexOf("be_name");
                serverCol = header.indexOf("srv_name");
                opCol = header.indexOf("srv_op_state");
                adminCol = header.indexOf("srv_admin_state");
                continue;
            }
            if (backendCol < 0 || serverCol < 0 || opCol < 0 || adminCol < 0) {
                throw new IllegalArgumentException("answered without a header naming be_name, srv_name, srv_op_state"
                        + " and srv_admin_state (format version " + lines.get(0) + ")");
            }
            String[] fields = line.split("\\s+");
            int needed = Math.max(Math.max(backendCol, serverCol), Math.max(opCol, adminCol));
            if (fields.length <= needed) {
                throw new IllegalArgumentException("answered a short line: " + line);
            }
            try {
                ServerState state = new ServerState(fields[backendCol], fields[serverCol],
                        Integer.parseInt(fields[opCol]), Integer.parseInt(fields[adminCol]));
                out.put(state.backend() + "/" + state.server(), state);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("answered a line with a non-numeric state: " + line, e);
            }
        }
        return out;
    }

    private static String oneLine(String text) {
        return text.replace("\r", "").replace("\n", " | ");
    }

    private static Map<String, Server> validate(Map<String, String> mapping) {
        if (mapping.isEmpty()) {
            throw new IllegalArgumentException(
                    "HAProxy adapter: no node is mapped to an HAProxy server; give each node as node=backend/server");
        }
        Map<String, Server> out = new LinkedHashMap<>();
        Map<String, String> nodeByTarget = new HashMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(mapping).entrySet()) {
            String node = e.getKey();
            String target = e.getValue();
            if (node.isBlank() || node.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("HAProxy adapter: node id '" + printable(node)
                        + "' is blank or contains control characters");
            }
            if (target == null) {
                throw new IllegalArgumentException("HAProxy adapter: node '" + node + "' has no backend/server");
            }
            int slash = target.indexOf('/');
            String backend = slash < 0 ? "" : target.substring(0, slash);
            String server = slash < 0 ? "" : target.substring(slash + 1);
            if (slash < 0 || !NAME.matcher(backend).matches() || !NAME.matcher(server).matches()) {
                throw new IllegalArgumentException("HAProxy adapter: node '" + node + "' maps to '" + printable(target)
                        + "', expected backend/server where both names use only letters, digits and - _ . :"
                        + " (HAProxy's rule for names; no spaces, ';', '\\' or line breaks)");
            }
            String previous = nodeByTarget.putIfAbsent(target, node);
            if (previous != null) {
                throw new IllegalArgumentException("HAProxy adapter: nodes '" + previous + "' and '" + node
                        + "' both map to " + target + "; each node needs its own server");
            }
            out.put(node, new Server(backend, server));
        }
        return Collections.unmodifiableMap(out);
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("HAProxy adapter: " + what + " must be positive, was " + d);
        }
        return d;
    }

    /** One HAProxy server; also the lock that orders calls for its node. */
    private static final class Server {
        private final String backend;
        private final String server;

        Server(String backend, String server) {
            this.backend = backend;
            this.server = server;
        }

        String backend() {
            return backend;
        }

        String server() {
            return server;
        }

        String target() {
            return backend + "/" + server;
        }
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
