package io.bladegc.servlet;

import io.bladegc.api.BladeNode;
import io.bladegc.api.Gate;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * What a draining node answers: {@code 503} with {@code Retry-After} in whole seconds (RFC 9110 delay-seconds, the
 * node's {@link BladeNode#retryAfter()} rounded up, at least 1, at most an hour) and the same hint in milliseconds
 * in {@value BladeFilter#RETRY_AFTER_MS_HEADER}; and the readiness endpoint's {@code 200 ready} or
 * {@code 503 draining}. Stateless and thread-safe.
 */
final class DrainingResponse {
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long MAX_RETRY_NANOS = 3_600L * NANOS_PER_SECOND;

    private DrainingResponse() {
    }

    /** Answers a shed request. */
    static void write(BladeNode n, HttpServletResponse res) throws IOException {
        res.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        setRetryAfter(n, res);
        res.setHeader("Cache-Control", "no-store");
        res.setContentType("text/plain;charset=UTF-8");
        res.getWriter().write("draining");
    }

    /** Answers the readiness endpoint; a pass-through filter ({@code g} or {@code n} null) is always ready. */
    static void readiness(Gate g, BladeNode n, HttpServletResponse res) throws IOException {
        if (g == null || n == null || g.isOpen()) {
            res.setStatus(HttpServletResponse.SC_OK);
            res.setHeader("Cache-Control", "no-store");
            res.setContentType("text/plain;charset=UTF-8");
            res.getWriter().write("ready");
        } else {
            write(n, res);
        }
    }

    private static void setRetryAfter(BladeNode n, HttpServletResponse res) {
        long nanos;
        try {
            nanos = n.retryAfter().toNanos();
        } catch (RuntimeException e) {
            nanos = NANOS_PER_SECOND; // never shed without a Retry-After
        }
        nanos = Math.max(0, Math.min(nanos, MAX_RETRY_NANOS));
        res.setHeader("Retry-After", Long.toString(Math.max(1, ceilDiv(nanos, NANOS_PER_SECOND))));
        res.setHeader(BladeFilter.RETRY_AFTER_MS_HEADER, Long.toString(Math.max(1, ceilDiv(nanos, NANOS_PER_MILLI))));
    }

    private static long ceilDiv(long x, long y) {
        return (x + y - 1) / y;
    }
}
