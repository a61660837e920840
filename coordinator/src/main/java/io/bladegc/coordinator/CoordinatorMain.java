package io.bladegc.coordinator;

import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.coordinator.lb.LoadBalancer;
import io.bladegc.coordinator.lb.HaproxyRuntimeApi;
import io.bladegc.coordinator.lb.NoLoadBalancer;
import io.bladegc.coordinator.lb.RuntimeApiEndpoint;
import io.bladegc.coordinator.slots.SlotService;
import io.bladegc.coordinator.slots.SlotServiceBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code java -jar blade-coordinator.jar [options]}: parses the options ({@code --help} lists them), starts the
 * server, prints one summary line, and runs until SIGTERM or Ctrl-C, then shuts down gracefully. Exit status 0 after
 * a normal stop, 2 for bad options or a refused configuration, 1 when the server cannot start.
 */
public final class CoordinatorMain {

    private CoordinatorMain() {
    }

    public static void main(String[] args) {
        int status = run(args, System.getenv(), System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Runs the coordinator until it is stopped; returns the exit status. */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        CoordinatorOptions.Parsed parsed = CoordinatorOptions.parse(args, env);
        if (parsed.help()) {
            out.print(CoordinatorOptions.usage());
            return 0;
        }
        if (!parsed.errors().isEmpty()) {
            parsed.errors().forEach(e -> err.println("blade-coordinator: " + e));
            err.println("blade-coordinator: see --help");
            return 2;
        }
        CoordinatorServer server;
        try {
            server = start(parsed);
        } catch (IOException | RuntimeException e) {
            err.println("blade-coordinator: cannot start: " + e.getMessage());
            return 1;
        }
        Thread hook = new Thread(server::close, "blade-coordinator-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        CoordinatorReplica.Settings replication = CoordinatorReplica.parse(parsed.values());
        out.println(summary(parsed.config(), server) + (replication == null ? ""
            : " | " + CoordinatorReplica.summary(replication)));
        try {
            server.awaitClose();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.close();
        }
        return 0;
    }

    /**
     * Starts the slot service and the server for {@code parsed}; with {@code --peers}, this process is one replica of
     * a replicated coordinator ({@link CoordinatorReplica}) whose ledger is kept by Raft on every replica and on disk.
     * Standalone, the coordinator keeps no state on disk, so it cannot tell a first start from a restart: it always
     * starts as the successor of a lost one. It grants nothing for one
     * lease (a predecessor's grants have run out by then), and its epochs start at the wall clock in microseconds,
     * above any predecessor's as long as that one granted fewer than 1,000 slots per millisecond on average (the
     * measured maximum is about 22 per millisecond) and the wall clock did not step back by more than the restart
     * took.
     */
    static CoordinatorServer start(CoordinatorOptions.Parsed parsed) throws IOException {
        CoordinatorConfig config = parsed.config();
        CoordinatorReplica.Settings replication = CoordinatorReplica.parse(parsed.values());
        LoadBalancer loadBalancer = loadBalancer(parsed);
        SlotServiceBuilder builder = SlotService.builder()
            .policy(config.policy())
            .loadBalancer(loadBalancer)
            .maxMembers(config.maxMembers());
        if (replication == null) {
            builder.successorOf(Math.multiplyExact(System.currentTimeMillis(), 1_000L), config.policy().leaseMillis());
        } else { // the ledger survives on the other replicas and on disk: no hold, epochs continue
            builder.replicated(CoordinatorReplica.start(replication, config.policy()));
        }
        return CoordinatorServer.start(config, builder.build());
    }

    /**
     * The adapter the coordinator drives: HAProxy's runtime API when {@code haproxy} is given, else generic mode
     * ({@link NoLoadBalancer}: the node's readiness endpoint and its 503 gate move traffic away).
     *
     * @throws IllegalArgumentException naming the key when the HAProxy settings are incomplete or malformed
     */
    static LoadBalancer loadBalancer(CoordinatorOptions.Parsed parsed) {
        Map<String, String> v = parsed.values();
        String endpoint = v.get("haproxy");
        if (endpoint == null || endpoint.isBlank() || endpoint.equals("none")) {
            if (v.containsKey("haproxy-servers")) {
                throw new IllegalArgumentException("--haproxy-servers needs --haproxy (the runtime API endpoint)");
            }
            return new NoLoadBalancer();
        }
        String servers = v.get("haproxy-servers");
        if (servers == null || servers.isBlank()) {
            throw new IllegalArgumentException("--haproxy needs --haproxy-servers, e.g. n1=app/s1,n2=app/s2");
        }
        Map<String, String> mapping = new LinkedHashMap<>();
        for (String pair : servers.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("--haproxy-servers: '" + pair.trim()
                    + "' is not node=backend/server");
            }
            mapping.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        String drain = v.getOrDefault("haproxy-drain", "drain").trim();
        HaproxyRuntimeApi.AdminState state = switch (drain) {
            case "drain" -> HaproxyRuntimeApi.AdminState.DRAIN;
            case "maint" -> HaproxyRuntimeApi.AdminState.MAINT;
            default -> throw new IllegalArgumentException("--haproxy-drain takes drain or maint, not " + drain);
        };
        return HaproxyRuntimeApi.builder(RuntimeApiEndpoint.parse(endpoint)).servers(mapping)
            .drainState(state).build();
    }

    static String summary(CoordinatorConfig config, CoordinatorServer server) {
        SlotPolicy p = config.policy();
        String version = CoordinatorMain.class.getPackage().getImplementationVersion();
        String k = p.maxCollectingFraction() > 0 ? "K=" + p.maxCollectingFraction() + " of live members"
            : "K=" + p.maxCollecting();
        if (p.maxCollectingWhenDue() > 0) {
            k += " (" + p.maxCollectingWhenDue() + " for a due node)";
        }
        return "blade-coordinator " + (version == null ? "dev" : version) + " listening on http://"
            + hostPort(server) + " | " + k + ", min-healthy=" + p.minHealthy() + ", lease=" + p.leaseMillis()
            + " ms, member-timeout=" + p.memberTimeoutMillis() + " ms, first grant after one lease (restart safety) | token " + (config.token() == null
                ? "not set (loopback only)" : "required for POST") + " | limits: body "
            + CoordinatorServerInitializer.MAX_BODY / 1024 + " KiB, headers " + CoordinatorServerInitializer.MAX_HEADER_SIZE
            + " B, line " + CoordinatorServerInitializer.MAX_INITIAL_LINE + " B, request-timeout "
            + config.requestTimeoutMillis() + " ms, idle-timeout " + config.idleTimeoutMillis() + " ms, max-wait "
            + config.maxWaitMillis() + " ms, max-connections " + config.maxConnections() + " | load balancer: "
            + server.loadBalancerDescription();
    }

    private static String hostPort(CoordinatorServer server) {
        String host = server.address().getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + server.address().getPort();
    }
}
