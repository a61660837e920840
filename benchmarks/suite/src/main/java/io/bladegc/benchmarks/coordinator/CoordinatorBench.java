package io.bladegc.benchmarks.coordinator;

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
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) io.bladegc.benchmarks.coordinator.CoordinatorBench \
 *     [--jar coordinator/target/blade-coordinator.jar] [--mode all|latency|throughput|memory] \
 *     [--warmup-cycles 20000] [--cycles 200000] [--connections 1,2,4,8,16] [--seconds 20] \
 *     [--warmup-seconds seconds/4, at least 2] [--nodes 100000] [--idle-members 0] [--server-jvm-opts "-Xmx512m"]
 * </pre>
 */
public final class CoordinatorBench {
    private CoordinatorBench() {
    }

    public static void main(String[] args) throws Exception {
        String jar = "coordinator/target/blade-coordinator.jar";
        String mode = "all";
        int warmupCycles = 20_000;
        int cycles = 200_000;
        int[] connections = {1, 2, 4, 8, 16};
        int seconds = 20;
        int warmupSeconds = -1;
        int nodes = 100_000;
        String serverOpts = "";
        int idleMembers = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                usage();
                return;
            }
            if (i + 1 >= args.length) {
                usage();
                System.exit(2);
            }
            String v = args[++i];
            switch (a) {
                case "--jar" -> jar = v;
                case "--mode" -> mode = v;
                case "--warmup-cycles" -> warmupCycles = Integer.parseInt(v);
                case "--cycles" -> cycles = Integer.parseInt(v);
                case "--connections" -> {
                    String[] parts = v.split(",");
                    connections = new int[parts.length];
                    for (int j = 0; j < parts.length; j++) {
                        connections[j] = Integer.parseInt(parts[j].trim());
                    }
                }
                case "--seconds" -> seconds = Integer.parseInt(v);
                case "--warmup-seconds" -> warmupSeconds = Integer.parseInt(v);
                case "--nodes" -> nodes = Integer.parseInt(v);
                case "--server-jvm-opts" -> serverOpts = v;
                case "--idle-members" -> idleMembers = Integer.parseInt(v);
                default -> {
                    System.err.println("unknown option " + a);
                    usage();
                    System.exit(2);
                }
            }
        }
        System.out.printf("machine: %d CPUs seen by the JVM, %s %s; client and server share them (nothing pinned)%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"));
        boolean all = mode.equals("all");
        if (all || mode.equals("latency")) {
            try (BenchedCoordinator s = BenchedCoordinator.start(jar, serverOpts)) {
                LatencyRun.run(s, warmupCycles, cycles);
            }
        }
        if (all || mode.equals("throughput")) {
            try (BenchedCoordinator s = BenchedCoordinator.start(jar, serverOpts)) {
                if (idleMembers > 0) {
                    joinIdleMembers(s, idleMembers);
                }
                for (int c : connections) {
                    ThroughputRun.run(s, c, warmupSeconds >= 0 ? warmupSeconds : Math.max(2, seconds / 4), seconds);
                }
            }
        }
        if (all || mode.equals("memory")) {
            try (BenchedCoordinator s = BenchedCoordinator.start(jar, serverOpts)) {
                MemoryRun.run(s, nodes);
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

    private static void usage() {
        System.out.println("Usage: java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) "
                + "io.bladegc.benchmarks.coordinator.CoordinatorBench [--jar coordinator/target/blade-coordinator.jar] "
                + "[--mode all|latency|throughput|memory] [--warmup-cycles 20000] [--cycles 200000] "
                + "[--connections 1,2,4,8,16] [--seconds 20] [--warmup-seconds <seconds/4, at least 2>] [--nodes 100000] "
                + "[--idle-members 0] [--server-jvm-opts \"-Xmx512m\"]");
    }
}
