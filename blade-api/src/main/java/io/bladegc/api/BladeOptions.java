package io.bladegc.api;

import java.time.Duration;
import java.util.Objects;

/**
 * Blade's settings for one JVM. Immutable and thread-safe. Build with {@link #builder()}; read from agent arguments,
 * system properties and the environment with {@link BladeOptionsParser}.
 *
 * @param enabled        whether Blade runs at all (default {@code true})
 * @param strict         whether a bad option stops the JVM instead of disabling Blade (default {@code false})
 * @param drainTimeout   the longest Blade waits for in-flight requests before collecting anyway (default 500 ms)
 * @param margin         extra lead time on top of the measured drain and schedule times (default 20 ms)
 * @param sampleInterval how often the heap watcher reads the memory pools (default 5 ms)
 */
public record BladeOptions(boolean enabled, boolean strict, Duration drainTimeout, Duration margin,
                           Duration sampleInterval) {

    public BladeOptions {
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        Objects.requireNonNull(margin, "margin");
        Objects.requireNonNull(sampleInterval, "sampleInterval");
        requirePositive("drainTimeout", drainTimeout);
        requirePositive("sampleInterval", sampleInterval);
        if (margin.isNegative()) {
            throw new IllegalArgumentException("margin must not be negative: " + margin);
        }
    }

    private static void requirePositive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }

    /** @return the defaults */
    public static BladeOptions defaults() {
        return builder().build();
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link BladeOptions}. Not thread-safe. */
    public static final class Builder {
        private boolean enabled = true;
        private boolean strict = false;
        private Duration drainTimeout = Duration.ofMillis(500);
        private Duration margin = Duration.ofMillis(20);
        private Duration sampleInterval = Duration.ofMillis(5);

        private Builder() {
        }

        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        public Builder strict(boolean strict) {
            this.strict = strict;
            return this;
        }

        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        public Builder margin(Duration margin) {
            this.margin = margin;
            return this;
        }

        public Builder sampleInterval(Duration sampleInterval) {
            this.sampleInterval = sampleInterval;
            return this;
        }

        /** @throws IllegalArgumentException when a value is out of range */
        public BladeOptions build() {
            return new BladeOptions(enabled, strict, drainTimeout, margin, sampleInterval);
        }
    }
}
