package io.bladegc.benchmarks.suite;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@link SuiteMain}'s command line. Immutable.
 *
 * @param scenario       the scenario: {@value HttpClusterScenario#NAME}, {@value SingleNodeScenario#NAME},
 *                       {@value MemoryPressureScenario#NAME}, {@value RaftKvScenario#NAME},
 *                       {@value LoadSweepScenario#NAME} (windows of its own, see {@link LoadSweepScenario}) or
 *                       {@value CollectionRateScenario#NAME}
 * @param quick          {@code --quick}: 1 repetition, 3 s warm-up, 6 s measured (the whole run under 5 minutes on
 *                       2 cores); otherwise 3 repetitions, 15 s warm-up, 60 s measured ({@value
 *                       MemoryPressureScenario#NAME} has windows of its own and fewer heap ratios when quick;
 *                       {@value RaftKvScenario#NAME} has its own sizes, see {@link RaftKvScenario})
 * @param agentJar       the agent jar (required)
 * @param coordinatorJar the coordinator jar (required)
 * @param out            where results go (required)
 * @param haproxy        the {@code haproxy} executable (default {@code haproxy})
 * @param jvmDir         where to look for a JDK 21 or newer (default {@code /usr/lib/jvm})
 * @param rate           requests per second (default 600): through HAProxy ({@value HttpClusterScenario#NAME}),
 *                       to the one server ({@value SingleNodeScenario#NAME}), the rate search's first probe
 *                       ({@value MemoryPressureScenario#NAME}), to the Raft group ({@value RaftKvScenario#NAME})
 * @param command        the command line to name in the table's header (default: SuiteMain's arguments)
 * @param arms           {@code --arms a,b,...}: only these of {@value HttpClusterScenario#NAME}'s arms, in its own order
 *                       (the capacity search only for those of them it searches); empty (the default): every arm.
 *                       {@value HttpClusterScenario#NAME} only
 */
public record SuiteOptions(String scenario, boolean quick, Path agentJar, Path coordinatorJar, Path out,
                           Path haproxy, Path jvmDir, double rate, String command, List<String> arms) {

    /** The usage line. */
    public static final String USAGE = "usage: SuiteMain http-cluster|single-node|memory-pressure|raft-kv|load-sweep|collection-rate"
        + " [--quick]"
        + " --agent-jar JAR --coordinator-jar JAR"
        + " --out DIR [--haproxy haproxy] [--jvm-dir /usr/lib/jvm] [--rate 600] [--arms a,b,...] [--command TEXT]";

    /** The scenarios, by name. */
    public static final List<String> SCENARIOS = List.of(HttpClusterScenario.NAME, SingleNodeScenario.NAME,
        MemoryPressureScenario.NAME, RaftKvScenario.NAME, LoadSweepScenario.NAME, CollectionRateScenario.NAME);

    /** @return repetitions of every arm */
    public int repetitions() {
        return quick ? 1 : 3;
    }

    /** @return load before each measured window */
    public Duration warmup() {
        return quick ? Duration.ofSeconds(3) : Duration.ofSeconds(15);
    }

    /** @return each measured window */
    public Duration measure() {
        return quick ? Duration.ofSeconds(6) : Duration.ofSeconds(60);
    }

    /** @throws IllegalArgumentException naming the first bad, unknown or missing option */
    public static SuiteOptions parse(String... args) {
        if (args.length == 0 || args[0].startsWith("--")) {
            throw new IllegalArgumentException("the scenario comes first");
        }
        String scenario = args[0];
        if (!SCENARIOS.contains(scenario)) {
            throw new IllegalArgumentException("unknown scenario " + scenario + "; one of " + SCENARIOS);
        }
        boolean quick = false;
        Path agentJar = null;
        Path coordinatorJar = null;
        Path out = null;
        Path haproxy = Path.of("haproxy");
        Path jvmDir = Path.of("/usr/lib/jvm");
        double rate = 600;
        String command = "SuiteMain " + String.join(" ", args);
        List<String> arms = List.of();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--quick")) {
                quick = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("missing value for " + args[i]);
            }
            String v = args[++i];
            switch (args[i - 1]) {
                case "--agent-jar" -> agentJar = Path.of(v);
                case "--coordinator-jar" -> coordinatorJar = Path.of(v);
                case "--out" -> out = Path.of(v);
                case "--haproxy" -> haproxy = Path.of(v);
                case "--jvm-dir" -> jvmDir = Path.of(v);
                case "--rate" -> rate = Double.parseDouble(v);
                case "--command" -> command = v;
                case "--arms" -> arms = List.of(v.split(",", -1));
                default -> throw new IllegalArgumentException("unknown option " + args[i - 1]);
            }
        }
        if (agentJar == null || coordinatorJar == null || out == null) {
            throw new IllegalArgumentException("--agent-jar, --coordinator-jar and --out are required");
        }
        if (!(rate > 0)) {
            throw new IllegalArgumentException("rate must be positive: " + rate);
        }
        if (!arms.isEmpty() && !scenario.equals(HttpClusterScenario.NAME)) {
            throw new IllegalArgumentException("--arms applies to " + HttpClusterScenario.NAME + " only");
        }
        if (arms.stream().anyMatch(String::isBlank)) {
            throw new IllegalArgumentException("--arms needs arm names separated by commas: " + String.join(",", arms));
        }
        return new SuiteOptions(scenario, quick, agentJar, coordinatorJar, out, haproxy, jvmDir, rate, command, arms);
    }
}
