package io.bladegc.benchmarks.coordinator;

import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageProblems;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Hand-run benchmark of the coordinator (not a test): starts {@code blade-coordinator.jar} as a separate JVM
 * ({@link BenchedCoordinator}) for each part and measures
 * <ol>
 *   <li>{@code latency} ({@link LatencyRun}): the acquire round trip and the acquire + release cycle of one node on
 *       one connection;</li>
 *   <li>{@code throughput} ({@link ThroughputRun}): cycles per second with several connections, one node each, after
 *       joining {@code --idle-members} members that stay live and idle; also CPU time per cycle;</li>
 *   <li>{@code memory} ({@link MemoryRun}): bytes of heap per registered node.</li>
 * </ol>
 * The client ({@link NodeConnection}) and the coordinator share the machine's CPUs; nothing is pinned.
 *
 * <p>Usage:
 * <pre>
 * java -cp benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt) io.bladegc.benchmarks.coordinator.CoordinatorBench \
 *     [--jar coordinator/target/blade-coordinator.jar] [--mode all|latency|throughput|memory] \
 *     [--warmup-cycles 20000] [--cycles 200000] [--connections 1,2,4,8,16] [--seconds 20] \
 *     [--warmup-seconds seconds/4, at least 2] [--nodes 100000] [--idle-members 0] [--server-jvm-opts "-Xmx512m"]
 * </pre>
 */
public final class CoordinatorBench {
    private CoordinatorBench() {
    }

    /** The command line. */
    @Command(name = "CoordinatorBench", description = "Hand-run benchmark of the coordinator: acquire latency,"
        + " throughput over several connections, heap per registered node; each part against a coordinator JVM of"
        + " its own.")
    static final class Settings implements ToolCommand<Settings> {
        private static final List<String> MODES = List.of("all", "latency", "throughput", "memory");

        @Option(names = "--jar", paramLabel = "JAR", defaultValue = "coordinator/target/blade-coordinator.jar",
            description = "the coordinator jar (default ${DEFAULT-VALUE})")
        String jar;

        @Option(names = "--mode", paramLabel = "all|latency|throughput|memory", defaultValue = "all",
            description = "which parts to run (default ${DEFAULT-VALUE})")
        String mode;

        @Option(names = "--warmup-cycles", paramLabel = "N", defaultValue = "20000",
            description = "latency: acquire + release cycles before measuring (default ${DEFAULT-VALUE})")
        int warmupCycles;

        @Option(names = "--cycles", paramLabel = "N", defaultValue = "200000",
            description = "latency: cycles measured (default ${DEFAULT-VALUE})")
        int cycles;

        @Option(names = "--connections", paramLabel = "N", defaultValue = "1,2,4,8,16", split = ",",
            description = "throughput: a run with each of these many connections (default ${DEFAULT-VALUE})")
        int[] connections;

        @Option(names = "--seconds", paramLabel = "N", defaultValue = "20",
            description = "throughput: seconds measured per run (default ${DEFAULT-VALUE})")
        int seconds;

        @Option(names = "--warmup-seconds", paramLabel = "N",
            description = "throughput: seconds before measuring (default a quarter of --seconds, at least 2)")
        Integer warmupSeconds;

        @Option(names = "--nodes", paramLabel = "N", defaultValue = "100000",
            description = "memory: nodes registered (default ${DEFAULT-VALUE})")
        int nodes;

        @Option(names = "--idle-members", paramLabel = "N", defaultValue = "0",
            description = "throughput: members joined first that stay live and idle (default ${DEFAULT-VALUE})")
        int idleMembers;

        @Option(names = "--server-jvm-opts", paramLabel = "OPTIONS", defaultValue = "",
            description = "JVM options of the coordinator, e.g. \"-Xmx512m\" (default none)")
        String serverOpts;

        @Override
        public Settings options() {
            UsageProblems problems = new UsageProblems();
            problems.check(MODES.contains(mode), "--mode", mode, "one of " + String.join(", ", MODES));
            problems.throwIfAny();
            return this;
        }

        int warmupSecondsOrDefault() {
            return warmupSeconds != null && warmupSeconds >= 0 ? warmupSeconds : Math.max(2, seconds / 4);
        }
    }

    public static void main(String[] args) throws Exception {
        Settings o = ToolCommandLine.parseOrExit(new Settings(), args);
        System.out.printf("machine: %d CPUs seen by the JVM, %s %s; client and server share them (nothing pinned)%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"));
        boolean all = o.mode.equals("all");
        if (all || o.mode.equals("latency")) {
            try (BenchedCoordinator s = BenchedCoordinator.start(o.jar, o.serverOpts)) {
                LatencyRun.run(s, o.warmupCycles, o.cycles);
            }
        }
        if (all || o.mode.equals("throughput")) {
            try (BenchedCoordinator s = BenchedCoordinator.start(o.jar, o.serverOpts)) {
                if (o.idleMembers > 0) {
                    joinIdleMembers(s, o.idleMembers);
                }
                for (int c : o.connections) {
                    ThroughputRun.run(s, c, o.warmupSecondsOrDefault(), o.seconds);
                }
            }
        }
        if (all || o.mode.equals("memory")) {
            try (BenchedCoordinator s = BenchedCoordinator.start(o.jar, o.serverOpts)) {
                MemoryRun.run(s, o.nodes);
            }
        }
    }

    private static void joinIdleMembers(BenchedCoordinator s, int idleMembers) throws Exception {
        long t0 = System.nanoTime();
        try (NodeConnection c = new NodeConnection(s.port(), "unused")) {
            for (int i = 0; i < idleMembers; i++) {
                c.postNode("idle-" + i, "join", "");
            }
        }
        System.out.printf("joined %,d idle members first (%.1f s); the coordinator counts %,d live members (member"
                + " timeout 600 s: they stay live without heartbeats)%n",
                idleMembers, (System.nanoTime() - t0) / 1e9, s.members());
    }
}
