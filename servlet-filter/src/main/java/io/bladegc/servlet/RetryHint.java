package io.bladegc.servlet;

import io.bladegc.api.RetryAfter;
import io.bladegc.api.BladeNode;

/**
 * The retry hint a Blade filter sends with a {@code 503}: {@code Retry-After} in whole seconds (RFC 9110
 * delay-seconds) and {@value FilterCore#RETRY_AFTER_MS_HEADER} in milliseconds, both from the node's
 * {@link BladeNode#retryAfter()} rounded up, at least 1, at most an hour. The rounding is {@link RetryAfter}'s, the
 * same the agent's servlet advice sends. Immutable.
 *
 * @param seconds the {@code Retry-After} value, {@code 1} to {@code 3600}
 * @param millis  the {@value FilterCore#RETRY_AFTER_MS_HEADER} value, {@code 1} to {@code 3600000}
 */
public record RetryHint(long seconds, long millis) {
    /**
     * @param n the draining node
     * @return its hint; one second when the node cannot say (a 503 never goes out without a {@code Retry-After})
     */
    public static RetryHint of(BladeNode n) {
        long nanos = RetryAfter.nanos(() -> n.retryAfter().toNanos());
        return new RetryHint(RetryAfter.seconds(nanos), RetryAfter.millis(nanos));
    }
}
