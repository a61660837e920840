package io.bladegc.vertx;

import io.bladegc.api.AttachedEntry;
import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.Gate;
import io.bladegc.api.RetryAfter;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Puts a Vert.x Web application's requests through the Blade node's {@link Gate}. Add it as the first handler of the
 * router, on every path, before any other route:
 *
 * <pre>{@code
 * BladeRouteHandler blade = BladeRouteHandler.start(BladeOptions.defaults());
 * Router router = Router.router(vertx);
 * router.route().handler(blade);
 * // ... the application's routes
 * vertx.createHttpServer().requestHandler(router).listen(8080);
 * }</pre>
 *
 * <ul>
 *   <li>A request admitted by the open gate is in flight from this handler until its response has ended (the last
 *       chunk of a chunked response included) or failed, or its connection closed, whichever comes first, counted
 *       once: Vert.x Web's {@link RoutingContext#addEndHandler}, so the application's own end handlers there do not
 *       replace it. The drain waits for it and never cuts it. A request rerouted ({@link RoutingContext#reroute})
 *       stays the one request it was.</li>
 *   <li>While the gate is closed, a new request is answered {@code 503 Service Unavailable} and goes no further, with
 *       {@code Retry-After} (whole seconds), {@value RetryAfter#MILLIS_HEADER} (milliseconds) and
 *       {@code Cache-Control: no-store}: the node's retry hint rounded up, see {@link RetryAfter}.</li>
 *   <li>A pass-through ({@link #isPassThrough()}) hands every request on untouched.</li>
 * </ul>
 *
 * <p>{@link #start} joins the JVM's Blade node (the agent's, or another entry's) or starts one (GCI mode), with
 * {@link Blade#attachEntry}. It never throws for a node it cannot reach: the handler is then a pass-through, with one
 * log line saying why.
 *
 * <p>Thread-safe: one handler may serve every router and event loop of the application; the getters are
 * {@link AttachedEntry}'s. {@link #close} is meant to be called once, when the server has shut down.
 */
public final class BladeRouteHandler extends AttachedEntry implements Handler<RoutingContext> {
    /** The routing context's mark of a request this handler admitted. */
    private static final String ADMITTED = "io.bladegc.vertx.admitted";
    private static final System.Logger LOG = System.getLogger(BladeRouteHandler.class.getName());

    /** @param node a node whose gate this attached to, or {@code null} for a pass-through */
    private BladeRouteHandler(BladeNode node) {
        super(node);
    }

    /**
     * Joins the JVM's Blade node, or starts one with {@code options} (GCI mode), and attaches to its gate. Never
     * throws for the node: {@code enabled=false}, an agent that left Blade off ({@link Blade#AGENT_OFF_PROPERTY}) or
     * a node that cannot start leave a pass-through that never sheds, with one log line (logger
     * {@code io.bladegc.vertx.BladeRouteHandler}) saying why.
     *
     * @param options settings for a new node; ignored, but for {@code enabled}, when a node runs already (its own
     *                options apply)
     * @return the handler
     * @throws NullPointerException when {@code options} is null
     */
    public static BladeRouteHandler start(BladeOptions options) {
        return new BladeRouteHandler(Blade.attachEntry(options, LOG, "Blade Vert.x handler", "request").orElse(null));
    }

    @Override
    public void handle(RoutingContext ctx) {
        BladeNode n = node();
        if (n == null || ctx.get(ADMITTED) != null) {
            ctx.next();
            return;
        }
        Gate gate = n.gate();
        if (!gate.tryEnter()) {
            shed(ctx.response(), n);
            return;
        }
        ctx.put(ADMITTED, Boolean.TRUE);
        AtomicBoolean left = new AtomicBoolean();
        ctx.addEndHandler(ended -> {
            if (left.compareAndSet(false, true)) {
                gate.exit();
            }
        });
        ctx.next();
    }

    private void shed(HttpServerResponse response, BladeNode n) {
        long nanos = countShed(n);
        response.setStatusCode(503)
            .putHeader(HttpHeaders.RETRY_AFTER, Long.toString(RetryAfter.seconds(nanos)))
            .putHeader(RetryAfter.MILLIS_HEADER, Long.toString(RetryAfter.millis(nanos)))
            .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
            .end();
    }
}
