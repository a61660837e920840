package io.bladegc.servlet;

import io.bladegc.api.BladeNode;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * What a draining node answers through the Jakarta {@link BladeFilter}: {@code 503} with the {@link RetryHint}
 * ({@code Retry-After} and {@value FilterCore#RETRY_AFTER_MS_HEADER}); and the readiness endpoint's
 * {@code 200 ready} or {@code 503 draining}. Stateless and thread-safe.
 */
final class DrainingResponse {
    private DrainingResponse() {
    }

    /** Answers a shed request. */
    static void write(BladeNode n, HttpServletResponse res) throws IOException {
        RetryHint hint = RetryHint.of(n);
        res.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        res.setHeader("Retry-After", Long.toString(hint.seconds()));
        res.setHeader(FilterCore.RETRY_AFTER_MS_HEADER, Long.toString(hint.millis()));
        res.setHeader("Cache-Control", "no-store");
        res.setContentType("text/plain;charset=UTF-8");
        res.getWriter().write("draining");
    }

    /** Answers the readiness endpoint; a pass-through filter ({@code n} null) is always ready. */
    static void readiness(BladeNode n, HttpServletResponse res) throws IOException {
        if (FilterCore.isReady(n)) {
            res.setStatus(HttpServletResponse.SC_OK);
            res.setHeader("Cache-Control", "no-store");
            res.setContentType("text/plain;charset=UTF-8");
            res.getWriter().write("ready");
        } else {
            write(n, res);
        }
    }
}
