package io.bladegc.benchmarks.demo;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Answers {@code GET /metrics} with the Prometheus text exposition of a registry, in front of the servlet context:
 * the request never reaches the Blade filter, so a scrape is neither gated nor counted in flight, and is answered
 * also while the node drains or collects (a scrape behind the gate would fail exactly when the gate is closed, and
 * {@code blade_gate_open} would never be seen at 0). Every other request goes on to the wrapped handler.
 * Other methods on {@value #PATH} get {@code 405}. Thread-safe (the registry is).
 */
final class MetricsHandler extends Handler.Wrapper {
    /** Where the exposition is served. */
    static final String PATH = "/metrics";

    /** Prometheus text format 0.0.4, what {@link PrometheusMeterRegistry#scrape()} writes. */
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    /**
     * @param registry what {@code GET /metrics} exposes
     * @param next     the handler of every other request
     */
    MetricsHandler(PrometheusMeterRegistry registry, Handler next) {
        super(next);
        this.registry = registry;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!PATH.equals(Request.getPathInContext(request))) {
            return super.handle(request, response, callback);
        }
        if (!HttpMethod.GET.is(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, HttpMethod.GET.asString());
            Response.writeError(request, response, callback, HttpStatus.METHOD_NOT_ALLOWED_405);
            return true;
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, CONTENT_TYPE);
        Content.Sink.write(response, true, registry.scrape(), callback);
        return true;
    }
}
