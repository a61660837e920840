package io.bladegc.coordinator;

import io.bladegc.api.slot.SlotPolicy;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Everything the coordinator is started with. Immutable; {@link #problems()} says whether it may start.
 *
 * @param bind                 the address to listen on (default {@value #DEFAULT_BIND})
 * @param port                 the port (default {@value #DEFAULT_PORT}; 0 for any free port)
 * @param token                the shared secret mutating calls must carry as {@code Authorization: Bearer <token>},
 *                             or {@code null} for none (allowed on a loopback address only)
 * @param policy               the slot policy (K, healthy minimum, lease, member timeout)
 * @param idleTimeoutMillis    a connection with no request in progress and no traffic this long is closed
 *                             (default 60 s)
 * @param requestTimeoutMillis a request must arrive completely within this long of its first bytes, else 408 and
 *                             close (default 10 s; this is what stops slowloris clients)
 * @param maxWaitMillis        the longest acquire long-poll ({@code waitMillis}) taken (default 60 s)
 * @param maxConnections       connections beyond this many are closed at once (default 10,000)
 * @param maxMembers           joins beyond this many members are refused with 503 (default 100,000)
 */
public record CoordinatorConfig(String bind, int port, String token, SlotPolicy policy, long idleTimeoutMillis,
                                long requestTimeoutMillis, long maxWaitMillis, int maxConnections, int maxMembers) {
    public static final String DEFAULT_BIND = "127.0.0.1";
    public static final int DEFAULT_PORT = 7070;

    public CoordinatorConfig {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(policy, "policy");
        token = token == null || token.isEmpty() ? null : token;
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535: " + port);
        }
        if (idleTimeoutMillis < 1 || requestTimeoutMillis < 1 || maxWaitMillis < 0) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (maxConnections < 1 || maxMembers < 1) {
            throw new IllegalArgumentException("maxConnections and maxMembers must be positive");
        }
    }

    /** @return loopback, port {@value #DEFAULT_PORT}, no token, {@link SlotPolicy#defaults()}, default limits */
    public static CoordinatorConfig defaults() {
        return new CoordinatorConfig(DEFAULT_BIND, DEFAULT_PORT, null, SlotPolicy.defaults(), 60_000, 10_000, 60_000,
            10_000, 100_000);
    }

    public CoordinatorConfig withBind(String bind, int port) {
        return new CoordinatorConfig(bind, port, token, policy, idleTimeoutMillis, requestTimeoutMillis, maxWaitMillis,
            maxConnections, maxMembers);
    }

    public CoordinatorConfig withToken(String token) {
        return new CoordinatorConfig(bind, port, token, policy, idleTimeoutMillis, requestTimeoutMillis, maxWaitMillis,
            maxConnections, maxMembers);
    }

    public CoordinatorConfig withPolicy(SlotPolicy policy) {
        return new CoordinatorConfig(bind, port, token, policy, idleTimeoutMillis, requestTimeoutMillis, maxWaitMillis,
            maxConnections, maxMembers);
    }

    public CoordinatorConfig withTimeouts(long idleTimeoutMillis, long requestTimeoutMillis, long maxWaitMillis) {
        return new CoordinatorConfig(bind, port, token, policy, idleTimeoutMillis, requestTimeoutMillis, maxWaitMillis,
            maxConnections, maxMembers);
    }

    public CoordinatorConfig withLimits(int maxConnections, int maxMembers) {
        return new CoordinatorConfig(bind, port, token, policy, idleTimeoutMillis, requestTimeoutMillis, maxWaitMillis,
            maxConnections, maxMembers);
    }

    /**
     * @return why the coordinator must not start with this configuration, one line each; empty when it may. A
     *     non-loopback address without a token is refused: anyone who can reach it could take slots and drain nodes.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            problems.add("cannot resolve bind address '" + bind + "'");
            return problems;
        }
        if (!address.isLoopbackAddress() && token == null) {
            problems.add("refusing to listen on " + bind + " (not a loopback address) without a token: set --token"
                + " or BLADE_COORDINATOR_TOKEN (mutating calls then need 'Authorization: Bearer <token>'), or bind "
                + DEFAULT_BIND);
        }
        return problems;
    }
}
