package io.bladegc.api;

import java.util.function.LongSupplier;

/**
 * The retry hint of a shed request, defined once for every Blade entry: {@code Retry-After} in whole seconds (RFC 9110
 * delay-seconds) and {@code Blade-Retry-After-Ms} in milliseconds, both the node's hint rounded up, at least 1, at most
 * an hour, and one second when the node cannot say (a 503 never goes out without a {@code Retry-After}).
 *
 * <p>The Blade filter's {@code RetryHint} uses it, and the agent puts it on the bootstrap class path beside its
 * {@code GateBridge} for the servlet advice (as the shaded jar names it). So it names JDK types only and holds no
 * state: whichever copy a class loader finds answers alike. Stateless and thread-safe.
 */
public final class RetryAfter {
    /** The response header with the hint in milliseconds ({@link #millis}), beside {@code Retry-After} in seconds. */
    public static final String MILLIS_HEADER = "Blade-Retry-After-Ms";

    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long MAX_NANOS = 3_600L * NANOS_PER_SECOND;

    private RetryAfter() {
    }

    /**
     * @param hint the node's retry hint in nanoseconds
     * @return the hint, within 0 and an hour; one second when {@code hint} throws
     */
    public static long nanos(LongSupplier hint) {
        try {
            return Math.max(0, Math.min(hint.getAsLong(), MAX_NANOS));
        } catch (RuntimeException e) {
            return NANOS_PER_SECOND;
        }
    }

    /**
     * @param nanos a hint from {@link #nanos}
     * @return the {@code Retry-After} value: whole seconds, rounded up, {@code 1} to {@code 3600}
     */
    public static long seconds(long nanos) {
        return Math.max(1, ceilDiv(nanos, NANOS_PER_SECOND));
    }

    /**
     * @param nanos a hint from {@link #nanos}
     * @return the {@code Blade-Retry-After-Ms} value: milliseconds, rounded up, {@code 1} to {@code 3600000}
     */
    public static long millis(long nanos) {
        return Math.max(1, ceilDiv(nanos, NANOS_PER_MILLI));
    }

    private static long ceilDiv(long x, long y) {
        return (x + y - 1) / y;
    }
}
