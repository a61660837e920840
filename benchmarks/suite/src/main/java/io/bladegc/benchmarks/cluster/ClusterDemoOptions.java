package io.bladegc.benchmarks.cluster;

import io.bladegc.benchmarks.load.LoadWindow;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import io.bladegc.commandline.UsageProblems;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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
    private static final List<String> ARMS = List.of("g1", "parallel", "blade");

    /** @throws UsageException naming every bad, unknown or missing option */
    static ClusterDemoOptions parse(String... args) {
        return ToolCommandLine.options(new Flags(), args);
    }

    /** The options as picocli reads them. */
    @Command(name = "ClusterDemo", description = "The cluster demo: three DemoServer backends behind HAProxy, one"
        + " arm after the other, the load from this JVM; prints the arms side by side.",
        defaultValueProvider = Flags.Defaults.class)
    static final class Flags implements ToolCommand<ClusterDemoOptions> {
        /** The demo's own load: 600 requests/s through HAProxy, 15 s of warm-up and 45 s measured per arm. */
        static final class Defaults extends LoadWindow.Defaults {
            Defaults() {
                super("600", "15s", "45s");
            }
        }

        @Mixin
        BladeJarOptions jars;

        @Option(names = "--arms", paramLabel = "ARMS", defaultValue = "g1,parallel,blade", description = "the arms in"
            + " the order they run, separated by commas or spaces, repeats allowed (default ${DEFAULT-VALUE})")
        String arms;

        /** --rate 600 (through HAProxy), --warmup 15s and --duration 45s (each measured window). */
        @Mixin
        LoadWindow window;

        @Option(names = "--haproxy", paramLabel = "EXECUTABLE", defaultValue = "haproxy",
            description = "the haproxy executable (default ${DEFAULT-VALUE}, found on the PATH)")
        Path haproxy;

        @Option(names = "--out", paramLabel = "DIR", defaultValue = "benchmarks/target/cluster-demo",
            description = "where results and logs go (default ${DEFAULT-VALUE})")
        Path out;

        @Override
        public ClusterDemoOptions options() {
            List<String> list = List.of(arms.trim().split("[ ,]+"));
            UsageProblems problems = new UsageProblems();
            for (String arm : list) {
                problems.check(ARMS.contains(arm), "--arms", arm, "an arm (use g1, parallel, blade)");
            }
            window.check(problems);
            problems.throwIfAny();
            return new ClusterDemoOptions(jars.agentJar(), jars.coordinatorJar(), list, window.rate(), window.warmup(),
                window.duration(), haproxy, out);
        }
    }
}
