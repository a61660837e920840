package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.cluster.BladeJarOptions;
import io.bladegc.benchmarks.suite.harness.InterleavedSchedule;
import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import io.bladegc.commandline.UsageProblems;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@link SuiteMain}'s command line. Immutable.
 *
 * @param scenario       the scenario, one of {@link SuiteMain#SCENARIOS}: {@code http-cluster}, {@code single-node},
 *                       {@code memory-pressure}, {@code raft-kv}, {@code raft-kv-heavy}, {@code raft-counter},
 *                       {@code raft-memory-pressure} (rate searches), {@code load-sweep} (windows of its own),
 *                       {@code collection-rate} or {@code grpc-cluster}; {@link SuiteMain} names the class of each
 * @param quick          {@code --quick}: 1 repetition, 3 s warm-up, 6 s measured (the whole run under 5 minutes on
 *                       2 cores); otherwise 3 repetitions, 15 s warm-up, 60 s measured ({@code memory-pressure} has
 *                       windows of its own and fewer heap ratios when quick; {@code raft-kv} and
 *                       {@code grpc-cluster} have their own sizes, see their scenarios' classes)
 * @param agentJar       the agent jar (required)
 * @param coordinatorJar the coordinator jar (required)
 * @param out            where results go (required)
 * @param haproxy        the {@code haproxy} executable (default {@code haproxy})
 * @param jvmDir         where to look for a JDK 21 or newer (default {@code /usr/lib/jvm})
 * @param rate           requests per second (default 600): through HAProxy ({@code http-cluster}), to the one server
 *                       ({@code single-node}), the rate search's first probe ({@code memory-pressure}), to the Raft
 *                       group ({@code raft-kv}), unary calls over the three backends ({@code grpc-cluster}); G1's
 *                       closed-loop saturation, whose shares the sweep runs ({@code load-sweep})
 * @param command        the command line to name in the table's header (default: SuiteMain's arguments)
 * @param arms           {@code --arms a,b,...}: only these of the scenario's arms, in its own order (for
 *                       {@code http-cluster} the capacity search only for those of them it searches);
 *                       empty (the default): every arm. {@link SuiteMain#ARM_SCENARIOS} only
 * @param heap           {@code --heap}: every backend's heap but Epsilon's, as the JVM's {@code -Xmx} takes it
 *                       ({@code 1g}, {@code 1536m}; default {@value #DEFAULT_HEAP});
 *                       {@link SuiteMain#BACKEND_SCENARIOS} only
 * @param workload       {@code --workload}: what every backend does per request ({@link Workload}; default
 *                       {@code cache-churn}); {@link SuiteMain#BACKEND_SCENARIOS} only
 * @param gcThreads      {@code --gc-threads}: every backend's {@code -XX:ParallelGCThreads} (default 1, so that three
 *                       backends, HAProxy and the load generator share two cores with care; 2 is the JVM's own
 *                       choice on such a machine); {@link SuiteMain#BACKEND_SCENARIOS} only
 * @param backendCpus    {@code --backend-cpus}: each backend held to this many cores ({@link
 *                       io.bladegc.benchmarks.suite.harness.CpuQuota}), as a replica with a CPU limit; 0 (the
 *                       default) for none; {@code load-sweep} only
 */
public record SuiteOptions(String scenario, boolean quick, Path agentJar, Path coordinatorJar, Path out,
                           Path haproxy, Path jvmDir, double rate, String command, List<String> arms, String heap,
                           Workload workload, int gcThreads, double backendCpus) {

    /** The backends' heap without {@code --heap}: the http-cluster workload's. */
    public static final String DEFAULT_HEAP = "1g";

    /** @return {@code -Xms} and {@code -Xmx} of {@code size} ({@code 1g}, {@code 1536m}): a fixed heap */
    public static List<String> heapFlags(String size) {
        return List.of("-Xms" + size, "-Xmx" + size);
    }

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

    /**
     * @return the windows and repetitions as the reports' footers state them, e.g. {@code "15 s warm-up, 60 s
     *     measured; 3 repetition(s), odd ones in the order above, even ones reversed"} (the order of
     *     {@link InterleavedSchedule})
     */
    public String schedule() {
        return String.format(Locale.ROOT, "%d s warm-up, %d s measured; %d repetition(s), odd ones in the order above,"
            + " even ones reversed", warmup().toSeconds(), measure().toSeconds(), repetitions());
    }

    /** @throws UsageException naming every bad, unknown or missing option */
    public static SuiteOptions parse(String... args) {
        return ToolCommandLine.options(new Flags(args), args);
    }

    /** The options as picocli reads them. */
    @Command(name = "SuiteMain", description = "The benchmark suite: runs one scenario, writes its results and table"
        + " to --out. Exit status 0 when every part of the scenario completed, 1 when some failed.")
    static final class Flags implements ToolCommand<SuiteOptions> {
        @Parameters(index = "0", paramLabel = "<scenario>", description = "http-cluster, single-node,"
            + " memory-pressure, raft-kv, raft-kv-heavy, load-sweep, collection-rate or grpc-cluster")
        String scenario;

        @Option(names = "--quick", description = "1 repetition, 3 s warm-up, 6 s measured (otherwise 3 repetitions,"
            + " 15 s warm-up, 60 s measured; some scenarios size their own windows)")
        boolean quick;

        @Mixin
        BladeJarOptions jars;

        @Option(names = "--out", paramLabel = "DIR", required = true, description = "where results go")
        Path out;

        @Option(names = "--haproxy", paramLabel = "EXECUTABLE", defaultValue = "haproxy",
            description = "the haproxy executable (default ${DEFAULT-VALUE})")
        Path haproxy;

        @Option(names = "--jvm-dir", paramLabel = "DIR", defaultValue = "/usr/lib/jvm",
            description = "where to look for a JDK 21 or newer (default ${DEFAULT-VALUE})")
        Path jvmDir;

        @Option(names = "--rate", paramLabel = "PER_SECOND", defaultValue = "600",
            description = "requests per second (default ${DEFAULT-VALUE})")
        double rate;

        @Option(names = "--arms", paramLabel = "a,b,...", description = "http-cluster, memory-pressure, the raft"
            + " scenarios and load-sweep only: only these of its arms, in its own order (default every arm)")
        String arms;

        @Option(names = "--heap", paramLabel = "SIZE", defaultValue = DEFAULT_HEAP, description = "http-cluster and"
            + " load-sweep only: every backend's heap but Epsilon's, as -Xmx takes it, e.g. 2g or 1536m (default"
            + " ${DEFAULT-VALUE})")
        String heap;

        @Option(names = "--workload", paramLabel = "NAME", defaultValue = "cache-churn", description = "http-cluster"
            + " and load-sweep only: what every backend does per request, cache-churn or request-scoped (default"
            + " ${DEFAULT-VALUE})")
        String workload;

        @Option(names = "--gc-threads", paramLabel = "N", defaultValue = "1", description = "http-cluster and"
            + " load-sweep only: every backend's -XX:ParallelGCThreads, 1 to 64 (default ${DEFAULT-VALUE}; 2 is the"
            + " JVM's own choice on two cores)")
        int gcThreads;

        @Option(names = "--backend-cpus", paramLabel = "CPUS", defaultValue = "0", description = "load-sweep only:"
            + " each backend held to this many cores in a CPU control group of its own, as a replica with a CPU"
            + " limit (needs root; default ${DEFAULT-VALUE}: no limit)")
        double backendCpus;

        @Option(names = "--command", paramLabel = "TEXT", description = "the command line to name in the table's"
            + " header (default: SuiteMain's arguments)")
        String command;

        private final String[] args;

        Flags(String... args) {
            this.args = args.clone();
        }

        @Override
        public SuiteOptions options() {
            UsageProblems problems = new UsageProblems();
            if (!SuiteMain.SCENARIOS.contains(scenario)) {
                problems.add("unknown scenario " + scenario + "; one of " + SuiteMain.SCENARIOS);
            }
            problems.check(rate > 0, "--rate", rate, "a positive rate");
            List<String> list = arms == null ? List.of() : List.of(arms.split(",", -1));
            if (!list.isEmpty() && !SuiteMain.ARM_SCENARIOS.contains(scenario)) {
                problems.add("--arms applies to " + String.join(", ", SuiteMain.ARM_SCENARIOS) + " only");
            }
            problems.check(list.stream().noneMatch(String::isBlank), "--arms", arms,
                "arm names separated by commas");
            problems.check(heap.matches("[1-9][0-9]*[mMgG]"), "--heap", heap, "a size with a unit, m or g, as -Xmx"
                + " takes it, e.g. 2g");
            if (!heap.equals(DEFAULT_HEAP) && !SuiteMain.BACKEND_SCENARIOS.contains(scenario)) {
                problems.add("--heap applies to " + String.join(", ", SuiteMain.BACKEND_SCENARIOS) + " only");
            }
            Workload w = Workload.named(workload);
            problems.check(w != null, "--workload", workload, "one of " + String.join(", ", Workload.labels()));
            if (w != null && w != Workload.CACHE_CHURN && !SuiteMain.BACKEND_SCENARIOS.contains(scenario)) {
                problems.add("--workload applies to " + String.join(", ", SuiteMain.BACKEND_SCENARIOS) + " only");
            }
            problems.inRange("--gc-threads", gcThreads, 1, 64);
            if (gcThreads != 1 && !SuiteMain.BACKEND_SCENARIOS.contains(scenario)) {
                problems.add("--gc-threads applies to " + String.join(", ", SuiteMain.BACKEND_SCENARIOS) + " only");
            }
            problems.check(backendCpus >= 0 && backendCpus <= 64, "--backend-cpus", backendCpus,
                "0 (no limit) or a number of cores up to 64, e.g. 0.5");
            if (backendCpus != 0 && !SuiteMain.CPU_LIMIT_SCENARIOS.contains(scenario)) {
                problems.add("--backend-cpus applies to " + String.join(", ", SuiteMain.CPU_LIMIT_SCENARIOS) + " only");
            }
            problems.throwIfAny();
            return new SuiteOptions(scenario, quick, jars.agentJar(), jars.coordinatorJar(), out, haproxy, jvmDir, rate,
                command != null ? command : "SuiteMain " + String.join(" ", args), list, heap, w,
                gcThreads, backendCpus);
        }
    }
}
