package io.bladegc.servlet;

import io.bladegc.api.BladeNode;

/**
 * The retry hint a Blade filter sends with a {@code 503}: {@code Retry-After} in whole seconds (RFC 9110
 * delay-seconds) and {@value FilterCore#RETRY_AFTER_MS_HEADER} in milliseconds, both from the node's
 * {@link BladeNode#retryAfter()} rounded up, at least 1, at most an hour. Immutable.
 *
 * @param seconds the {@code Retry-After} value, {@code 1} to {@code 3600}
 * @param millis  the {@value FilterCore#RETRY_AFTER_MS_HEADER} value, {@code 1} to {@code 3600000}
 */
public record RetryHint(long seconds, long millis) {
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long MAX_RETRY_NANOS = 3_600L * NANOS_PER_SECOND;

    /**
     * @param n the draining node
     * @return its hint; one second when the node cannot say (a 503 never goes out without a {@code Retry-After})
     */
    public static RetryHint of(BladeNode n) {
        long nanos;
        try {
            nanos = n.retryAfter().toNanos();
        } catch (RuntimeException e) {
            nanos = NANOS_PER_SECOND;
        }
        nanos = Math.max(0, Math.min(nanos, MAX_RETRY_NANOS));
        return new RetryHint(Math.max(1, ceilDiv(nanos, NANOS_PER_SECOND)),
            Math.max(1, ceilDiv(nanos, NANOS_PER_MILLI)));
    }

    private static long ceilDiv(long x, long y) {
        return (x + y - 1) / y;
    }
}
