package io.bladegc.benchmarks.load;

import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of an open-loop load that {@link OpenLoopLoad}'s and {@code DemoArm}'s command lines share, with
 * {@link OpenLoopLoad.Builder}'s defaults: {@link LoadWindow}'s {@code --rate} (1000), {@code --duration} (30s) and
 * {@code --warmup} (10s), and {@code --timeout} (10s), {@code --connections} (64). A picocli mixin ({@code @Mixin});
 * one per parse, not thread-safe.
 */
public final class LoadOptions {
    @Mixin
    LoadWindow window;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s", converter = DurationOption.class,
        description = "per request, from its send to the end of its response (default ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "64", description = "the most requests"
        + " (HTTP/1.1 connections) in flight at once; more wait in a queue (default ${DEFAULT-VALUE})")
    int connections;

    /** @return requests per second */
    public double rate() {
        return window.rate();
    }

    /** @return the measured window */
    public Duration duration() {
        return window.duration();
    }

    /** @return the load before the measured window */
    public Duration warmup() {
        return window.warmup();
    }

    /**
     * @param builder a load
     * @return {@code builder} with these options set
     */
    public OpenLoopLoad.Builder applyTo(OpenLoopLoad.Builder builder) {
        return builder.rate(window.rate()).duration(window.duration()).warmup(window.warmup()).timeout(timeout)
            .connections(connections);
    }
}
