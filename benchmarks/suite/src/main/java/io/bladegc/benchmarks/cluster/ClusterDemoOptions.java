package io.bladegc.benchmarks.cluster;

import io.bladegc.benchmarks.load.OpenLoopLoad;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@link ClusterDemo}'s command line. Immutable.
 *
 * @param agentJar       the agent jar (required)
 * @param coordinatorJar the coordinator jar (required)
 * @param arms           the arms in the order they run, each {@code g1}, {@code parallel} or {@code blade}, repeats
 *                       allowed (default {@code g1,parallel,blade})
 * @param rate           requests per second through HAProxy (default 600)
 * @param warmup         load before each measured window (default 15 s)
 * @param duration       each measured window (default 45 s)
 * @param haproxy        the {@code haproxy} executable (default {@code haproxy}, found on the {@code PATH})
 * @param out            where results and logs go (default {@code benchmarks/target/cluster-demo})
 */
record ClusterDemoOptions(Path agentJar, Path coordinatorJar, List<String> arms, double rate, Duration warmup,
                          Duration duration, Path haproxy, Path out) {

    /** @throws IllegalArgumentException naming the first bad, unknown or missing option */
    static ClusterDemoOptions parse(String... args) {
        Path agentJar = null;
        Path coordinatorJar = null;
        List<String> arms = List.of("g1", "parallel", "blade");
        double rate = 600;
        Duration warmup = Duration.ofSeconds(15);
        Duration duration = Duration.ofSeconds(45);
        Path haproxy = Path.of("haproxy");
        Path out = Path.of("benchmarks", "target", "cluster-demo");
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + args[i]);
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--agent-jar": agentJar = Path.of(v); break;
                case "--coordinator-jar": coordinatorJar = Path.of(v); break;
                case "--arms": arms = List.of(v.trim().split("[ ,]+")); break;
                case "--rate": rate = Double.parseDouble(v); break;
                case "--warmup": warmup = OpenLoopLoad.parseDuration(v); break;
                case "--duration": duration = OpenLoopLoad.parseDuration(v); break;
                case "--haproxy": haproxy = Path.of(v); break;
                case "--out": out = Path.of(v); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        for (String arm : arms) {
            if (!List.of("g1", "parallel", "blade").contains(arm)) {
                throw new IllegalArgumentException("unknown arm " + arm + " (use g1, parallel, blade)");
            }
        }
        if (agentJar == null || coordinatorJar == null) {
            throw new IllegalArgumentException("--agent-jar and --coordinator-jar are required");
        }
        if (!(rate > 0) || duration.isZero() || duration.isNegative() || warmup.isNegative()) {
            throw new IllegalArgumentException("rate and duration must be positive, warmup not negative");
        }
        return new ClusterDemoOptions(agentJar, coordinatorJar, arms, rate, warmup, duration, haproxy, out);
    }
}
