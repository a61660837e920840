package io.bladegc.coordinator;

import io.bladegc.api.DurationText;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.UsageProblems;
import io.bladegc.coordinator.lb.HaproxyRuntimeApi;
import io.bladegc.coordinator.lb.LoadBalancer;
import io.bladegc.coordinator.lb.NoLoadBalancer;
import io.bladegc.coordinator.lb.RuntimeApiEndpoint;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line of {@code java -jar blade-coordinator.jar}. The file ({@code --config}, Java properties) takes the
 * same keys as the flags, without the dashes ({@link CoordinatorConfigFile}). Precedence: flags, then the environment
 * ({@value #TOKEN_ENV} only, so the secret need not show in a process list), then the file, then the defaults. One
 * instance per parse; not thread-safe.
 */
@Command(name = "blade-coordinator", customSynopsis = "java -jar blade-coordinator.jar [options]",
    description = {
        "The Blade coordinator: grants GC slots to the nodes of a cluster (at most K collecting at once)",
        "over HTTP/1.1 + JSON under /v1/ (see API.md), and takes each collecting node out of rotation.",
        "Durations: 500ms, 10s, 2m or ISO-8601 (PT10S); a unit is required."},
    footer = {
        "The file given with --config holds the same keys, e.g. 'k=2' or 'lease=15s'. Precedence: flags,",
        CoordinatorCommandLine.TOKEN_ENV
            + ", the file, the defaults. Stop with SIGTERM (or Ctrl-C): open long-polls are",
        "answered, then the coordinator exits."})
final class CoordinatorCommandLine implements ToolCommand<CoordinatorOptions> {
    /** The environment variable that holds the token. */
    static final String TOKEN_ENV = "BLADE_COORDINATOR_TOKEN";

    @Option(names = "--bind", paramLabel = "<address>", defaultValue = CoordinatorConfig.DEFAULT_BIND,
        description = "address to listen on; a non-loopback address needs a token (default ${DEFAULT-VALUE})")
    String bind;

    @Option(names = "--port", paramLabel = "<port>", defaultValue = "" + CoordinatorConfig.DEFAULT_PORT,
        description = "port to listen on (0: any) (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--token", paramLabel = "<secret>", description = "shared secret: node calls and /v1/cluster need"
        + " 'Authorization: Bearer <secret>' (or env " + TOKEN_ENV + ") (default none)")
    String token;

    @Option(names = "--k", paramLabel = "<n>", defaultValue = "1",
        description = "at most this many nodes collecting at once (default ${DEFAULT-VALUE})")
    int k;

    @Option(names = "--k-fraction", paramLabel = "<0..1>", defaultValue = "0",
        description = "K as a share of live members (floor, at least 1); 0: use --k (default ${DEFAULT-VALUE})")
    double kFraction;

    @Option(names = "--min-healthy", paramLabel = "<n>", defaultValue = "1", description = "never grant when fewer"
        + " live members than this would be left serving (default ${DEFAULT-VALUE})")
    int minHealthy;

    @Option(names = "--k-due", paramLabel = "<n>", defaultValue = "0", description = "a node whose JVM will collect"
        + " on its own within 150 ms (it would collect in rotation) may be granted beyond K while fewer than this many"
        + " collect, min-healthy still holding; 0: never beyond K (default ${DEFAULT-VALUE})")
    int kDue;

    @Option(names = "--lease", paramLabel = "<duration>", defaultValue = "10s", converter = Millis.class,
        description = "a grant's lifetime unless renewed (default ${DEFAULT-VALUE})")
    long lease;

    @Option(names = "--member-timeout", paramLabel = "<duration>", defaultValue = "5s", converter = Millis.class,
        description = "a member silent this long is dropped (default ${DEFAULT-VALUE})")
    long memberTimeout;

    @Option(names = "--idle-timeout", paramLabel = "<duration>", defaultValue = "60s", converter = Millis.class,
        description = "close connections idle this long (default ${DEFAULT-VALUE})")
    long idleTimeout;

    @Option(names = "--request-timeout", paramLabel = "<duration>", defaultValue = "10s", converter = Millis.class,
        description = "a request must arrive within this of its first byte (default ${DEFAULT-VALUE})")
    long requestTimeout;

    @Option(names = "--max-wait", paramLabel = "<duration>", defaultValue = "60s", converter = Millis.class,
        description = "the longest acquire long-poll (waitMillis) taken (default ${DEFAULT-VALUE})")
    long maxWait;

    @Option(names = "--max-connections", paramLabel = "<n>", defaultValue = "10000",
        description = "connections beyond this are closed at once (default ${DEFAULT-VALUE})")
    int maxConnections;

    @Option(names = "--max-members", paramLabel = "<n>", defaultValue = "100000",
        description = "joins beyond this many members are refused (503) (default ${DEFAULT-VALUE})")
    int maxMembers;

    @Option(names = "--haproxy", paramLabel = "<endpoint>", description = "HAProxy runtime API (stats socket at level"
        + " admin): /path/admin.sock or host:port; none: generic mode (default none)")
    String haproxy;

    @Option(names = "--haproxy-servers", paramLabel = "<node=backend/server,...>",
        description = "which HAProxy server each node is, e.g. n1=app/s1,n2=app/s2 (default none)")
    String haproxyServers;

    @Option(names = "--haproxy-drain", paramLabel = "<drain|maint>", defaultValue = "drain", description = "state a"
        + " collecting node's server is put in: drain finishes open connections, maint cuts them"
        + " (default ${DEFAULT-VALUE})")
    String haproxyDrain;

    @Option(names = "--peers", paramLabel = "<id=host:port,...>", description = "replicated mode: the coordinator"
        + " replicas and their Raft ports; they share the ledger through Raft (default none)")
    String peers;

    @Option(names = "--id", paramLabel = "<id>", description = "replicated mode: this replica's id among --peers"
        + " (default none)")
    String id;

    @Option(names = "--raft-dir", paramLabel = "<dir>", defaultValue = "blade-coordinator-raft",
        description = "replicated mode: where this replica keeps its Raft log and snapshots (a directory per id below"
            + " it) (default ${DEFAULT-VALUE})")
    String raftDir;

    @Option(names = "--config", paramLabel = "<file>",
        description = "a .properties file with the same keys (without the dashes) (default none)")
    String config;

    private final Map<String, String> env;
    private CoordinatorConfigFile file;

    /** @param env the environment, for {@value #TOKEN_ENV} */
    CoordinatorCommandLine(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public void configure(CommandLine commandLine) {
        file = new CoordinatorConfigFile(commandLine.getCommandSpec(), () -> config);
        commandLine.setDefaultValueProvider(arg -> {
            String envToken = env.get(TOKEN_ENV);
            if (arg instanceof OptionSpec option && option.longestName().equals("--token")
                && envToken != null && !envToken.isEmpty()) {
                return envToken;
            }
            return file.value(arg);
        });
    }

    @Override
    public CoordinatorOptions options() {
        UsageProblems problems = new UsageProblems();
        file.problems().forEach(problems::add);
        problems.inRange("--port", port, 0, 65_535);
        problems.inRange("--k", k, 1, 1_000_000);
        problems.check(kFraction >= 0 && kFraction <= 1, "--k-fraction", kFraction, "a number in 0..1");
        problems.inRange("--min-healthy", minHealthy, 0, 1_000_000);
        problems.inRange("--k-due", kDue, 0, 1_000_000);
        problems.inRange("--max-connections", maxConnections, 1, 1_000_000);
        problems.inRange("--max-members", maxMembers, 1, 10_000_000);
        problems.throwIfAny();
        CoordinatorConfig built = null;
        try {
            built = new CoordinatorConfig(bind.trim(), port, token,
                new SlotPolicy(k, kFraction, minHealthy, lease, memberTimeout, kDue), idleTimeout, requestTimeout,
                maxWait, maxConnections, maxMembers);
            built.problems().forEach(problems::add);
        } catch (IllegalArgumentException e) {
            problems.add("invalid configuration: " + e.getMessage());
        }
        LoadBalancer loadBalancer = null;
        CoordinatorReplica.Settings replication = null;
        try {
            loadBalancer = loadBalancer();
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        try {
            replication = CoordinatorReplica.parse(peers, id, raftDir);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        problems.throwIfAny();
        return new CoordinatorOptions(built, loadBalancer, replication);
    }

    /**
     * The adapter the coordinator drives: HAProxy's runtime API when {@code --haproxy} is given, else generic mode
     * ({@link NoLoadBalancer}: the node's readiness endpoint and its 503 gate move traffic away).
     *
     * @throws IllegalArgumentException naming the option when the HAProxy settings are incomplete or malformed
     */
    private LoadBalancer loadBalancer() {
        if (haproxy == null || haproxy.isBlank() || haproxy.equals("none")) {
            if (haproxyServers != null) {
                throw new IllegalArgumentException("--haproxy-servers needs --haproxy (the runtime API endpoint)");
            }
            return new NoLoadBalancer();
        }
        if (haproxyServers == null || haproxyServers.isBlank()) {
            throw new IllegalArgumentException("--haproxy needs --haproxy-servers, e.g. n1=app/s1,n2=app/s2");
        }
        Map<String, String> mapping = new LinkedHashMap<>();
        for (String pair : haproxyServers.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new IllegalArgumentException("--haproxy-servers: '" + pair.trim()
                    + "' is not node=backend/server");
            }
            mapping.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        String drain = haproxyDrain.trim();
        HaproxyRuntimeApi.AdminState state = switch (drain) {
            case "drain" -> HaproxyRuntimeApi.AdminState.DRAIN;
            case "maint" -> HaproxyRuntimeApi.AdminState.MAINT;
            default -> throw new IllegalArgumentException("--haproxy-drain takes drain or maint, not " + drain);
        };
        return HaproxyRuntimeApi.builder(RuntimeApiEndpoint.parse(haproxy)).servers(mapping).drainState(state)
            .build();
    }

    /** A duration ({@link DurationText}: {@code 500ms}, {@code 10s}, {@code 2m}), in whole milliseconds, 1 ms to a day. */
    static final class Millis implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            Duration d;
            try {
                d = DurationText.parse(value.trim());
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "': " + e.getMessage());
            }
            if (d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(Duration.ofDays(1)) > 0) {
                throw new TypeConversionException("'" + value + "' is not between 1ms and 1440m (a day)");
            }
            return d.toMillis();
        }
    }
}
