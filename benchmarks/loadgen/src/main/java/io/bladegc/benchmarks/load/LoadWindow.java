package io.bladegc.benchmarks.load;

import io.bladegc.commandline.UsageProblems;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * When and how much open-loop load a command line runs: {@code --rate} (1000), {@code --warmup} (10s) and
 * {@code --duration} (30s), {@link OpenLoopLoad.Builder}'s defaults. A picocli mixin ({@code @Mixin}) of
 * {@link LoadOptions} and of the cluster demo's command line; a command whose defaults differ gives them with a
 * default value provider ({@link Defaults}), which picocli asks before these annotations. One per parse, not
 * thread-safe.
 */
public final class LoadWindow {
    @Option(names = "--rate", paramLabel = "PER_SECOND", defaultValue = "1000",
        description = "requests per second (default ${DEFAULT-VALUE})")
    double rate;

    @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "10s", converter = DurationOption.class,
        description = "load before the measured window (default ${DEFAULT-VALUE})")
    Duration warmup;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "30s", converter = DurationOption.class,
        description = "the measured window (default ${DEFAULT-VALUE})")
    Duration duration;

    /** @return requests per second */
    public double rate() {
        return rate;
    }

    /** @return the load before the measured window */
    public Duration warmup() {
        return warmup;
    }

    /** @return the measured window */
    public Duration duration() {
        return duration;
    }

    /**
     * Records what is wrong: a rate that is not positive, a measured window that is not, a negative warm-up.
     *
     * @param problems where the problems go
     */
    public void check(UsageProblems problems) {
        problems.check(rate > 0, "--rate", rate, "a positive rate");
        problems.check(!duration.isZero() && !duration.isNegative(), "--duration", duration, "positive");
        problems.check(!warmup.isNegative(), "--warmup", warmup, "zero or positive");
    }

    /**
     * A command's own defaults for these options, as its {@code @Command(defaultValueProvider = ...)}: subclass with
     * a no-argument constructor that passes them, as the command line would give them. Stateless.
     */
    public abstract static class Defaults implements IDefaultValueProvider {
        private final Map<String, String> values;

        /**
         * @param rate     {@code --rate}'s default, e.g. {@code "600"}
         * @param warmup   {@code --warmup}'s, e.g. {@code "15s"}
         * @param duration {@code --duration}'s, e.g. {@code "45s"}
         */
        protected Defaults(String rate, String warmup, String duration) {
            this.values = Map.of("--rate", rate, "--warmup", warmup, "--duration", duration);
        }

        @Override
        public String defaultValue(ArgSpec arg) {
            return arg instanceof OptionSpec o ? values.get(o.longestName()) : null;
        }
    }
}
