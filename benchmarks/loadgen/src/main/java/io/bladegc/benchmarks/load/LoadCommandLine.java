package io.bladegc.benchmarks.load;

import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import io.bladegc.commandline.UsageProblems;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@link OpenLoopLoad}'s command line, parsed: the URL (the one positional argument, required), {@code --rate} (1000), {@code --duration}
 * (30s), {@code --warmup} (10s), {@code --timeout} (10s), {@code --connections} (64), {@code --arrivals}
 * ({@code constant} or {@code poisson}), {@code --method} (GET), {@code --interval-log FILE} (none),
 * {@code --save FILE} (none). Immutable.
 *
 * @param load the configured load
 * @param save where to save the result, or {@code null}
 * @param description one line saying what will run, for the log
 */
record LoadCommandLine(OpenLoopLoad load, Path save, String description) {

    /**
     * @param args the arguments
     * @return the parsed command line
     * @throws UsageException naming every bad, unknown or missing option
     */
    static LoadCommandLine parse(String... args) {
        return ToolCommandLine.options(new Flags(), args);
    }

    /** The options as picocli reads them. */
    @Command(name = "OpenLoopLoad", description = "Open-loop HTTP load: requests sent at their intended times,"
        + " latency measured from those times; prints the result table. Exit status 1 when requests were left"
        + " unfinished.")
    static final class Flags implements ToolCommand<LoadCommandLine> {
        @Parameters(index = "0", paramLabel = "URL", description = "the http:// URL to load")
        URI url;

        @Mixin
        LoadOptions load;

        @Option(names = "--arrivals", paramLabel = "constant|poisson", defaultValue = "constant",
            description = "evenly spaced, or Poisson arrivals at the rate (default ${DEFAULT-VALUE})")
        String arrivals;

        @Option(names = "--method", paramLabel = "METHOD", defaultValue = "GET",
            description = "the HTTP method (default ${DEFAULT-VALUE})")
        String method;

        @Option(names = "--interval-log", paramLabel = "FILE",
            description = "where to write an HdrHistogram interval log of the measured 2xx latencies (one histogram"
                + " per second) (default none)")
        Path intervalLog;

        @Option(names = "--save", paramLabel = "FILE", description = "where to save the result (default none)")
        Path save;

        @Override
        public LoadCommandLine options() {
            UsageProblems problems = new UsageProblems();
            problems.check(arrivals.equals("constant") || arrivals.equals("poisson"), "--arrivals", arrivals,
                "constant or poisson");
            problems.throwIfAny();
            boolean poisson = arrivals.equals("poisson");
            OpenLoopLoad built;
            try {
                built = this.load.applyTo(OpenLoopLoad.builder(url)).poisson(poisson).intervalLog(intervalLog)
                    .method(method).build();
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            String description = String.format(Locale.ROOT, "open-loop load: %s %s at %.0f/s (%s), warm-up %s,"
                + " measuring %s", method, url, load.rate(), poisson ? "Poisson" : "constant", human(load.warmup()),
                human(load.duration()));
            return new LoadCommandLine(built, save, description);
        }
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
