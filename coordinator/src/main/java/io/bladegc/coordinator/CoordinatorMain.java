package io.bladegc.coordinator;

import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.coordinator.slots.SlotService;
import io.bladegc.coordinator.slots.SlotServiceBuilder;
import java.io.IOException;
import java.io.PrintStream;
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
        ToolCommandLine.Outcome<CoordinatorOptions> parsed =
            ToolCommandLine.parse(new CoordinatorCommandLine(env), args, out, err);
        CoordinatorOptions options = parsed.options();
        if (options == null) {
            return parsed.exitStatus();
        }
        CoordinatorServer server;
        try {
            server = start(options);
        } catch (IOException | RuntimeException e) {
            err.println("blade-coordinator: cannot start: " + e.getMessage());
            return 1;
        }
        Thread hook = new Thread(server::close, "blade-coordinator-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.println(summary(options.config(), server) + (options.replication() == null ? ""
            : " | " + CoordinatorReplica.summary(options.replication())));
        try {
            server.awaitClose();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.close();
        }
        return 0;
    }

    /**
     * Starts the slot service and the server for {@code options}; with {@code --peers}, this process is one replica
     * of a replicated coordinator ({@link CoordinatorReplica}) whose ledger is kept by Raft on every replica and on
     * disk. Standalone, the coordinator keeps no state on disk, so it cannot tell a first start from a restart: it
     * always starts as the successor of a lost one. It grants nothing for one
     * lease (a predecessor's grants have run out by then), and its epochs start at the wall clock in microseconds,
     * above any predecessor's as long as that one granted fewer than 1,000 slots per millisecond on average (the
     * measured maximum is about 22 per millisecond) and the wall clock did not step back by more than the restart
     * took.
     */
    static CoordinatorServer start(CoordinatorOptions options) throws IOException {
        CoordinatorConfig config = options.config();
        SlotServiceBuilder builder = SlotService.builder()
            .policy(config.policy())
            .loadBalancer(options.loadBalancer())
            .maxMembers(config.maxMembers());
        if (options.replication() == null) {
            builder.successorOf(Math.multiplyExact(System.currentTimeMillis(), 1_000L), config.policy().leaseMillis());
        } else { // the ledger survives on the other replicas and on disk: no hold, epochs continue
            builder.replicated(CoordinatorReplica.start(options.replication(), config.policy()));
        }
        return CoordinatorServer.start(config, builder.build());
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
