package io.bladegc.spring;

import io.bladegc.api.AttachedEntry;
import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.Gate;
import io.bladegc.api.RetryAfter;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Puts a Spring WebFlux application's requests through the Blade node's {@link Gate}, as the servlet filter does for
 * servlet applications. {@link BladeReactiveAutoConfiguration} registers it in a reactive Spring Boot application;
 * elsewhere, declare it as a bean ({@code WebHttpHandlerBuilder} picks up every {@link WebFilter} bean, in their
 * order).
 *
 * <ul>
 *   <li>A request admitted by the open gate is in flight from the moment the filter chain is subscribed until the
 *       {@code Mono<Void>} of the rest of the chain completes, errors or is cancelled: that is, until the handler's
 *       response, a streamed body ({@code Flux}, {@code text/event-stream}) included, has been written, or the
 *       exchange was given up (a client that went away). The drain waits for it and never cuts it.</li>
 *   <li>While the gate is closed, a new request is answered {@code 503 Service Unavailable} before any other filter
 *       or handler sees it, with {@code Retry-After} (whole seconds), {@value RetryAfter#MILLIS_HEADER}
 *       (milliseconds) and {@code Cache-Control: no-store}: the node's retry hint rounded up, see
 *       {@link RetryAfter}.</li>
 *   <li>A pass-through ({@link #isPassThrough()}) hands every request on untouched.</li>
 * </ul>
 *
 * <p>Its order is {@link Ordered#HIGHEST_PRECEDENCE}, so it runs before the application's filters.
 *
 * <p>Thread-safe: one instance serves every request of the application, on any thread; the getters are
 * {@link AttachedEntry}'s. {@link #close()} detaches it from the node's gate; Spring calls it when the application
 * context closes.
 */
public final class BladeWebFilter extends AttachedEntry implements WebFilter, Ordered {
    private static final System.Logger LOG = System.getLogger(BladeWebFilter.class.getName());

    /** @param node a node whose gate this attached to, or {@code null} for a pass-through */
    private BladeWebFilter(BladeNode node) {
        super(node);
    }

    /**
     * Joins the JVM's Blade node, or starts one with {@code options} (GCI mode), and attaches to its gate. Never
     * throws for the node: {@code enabled=false}, an agent that left Blade off ({@link Blade#AGENT_OFF_PROPERTY}) or
     * a node that cannot start leave a pass-through, with one log line (logger
     * {@code io.bladegc.spring.BladeWebFilter}) saying why.
     *
     * @param options settings for a new node; ignored, but for {@code enabled}, when a node runs already
     * @return the filter
     * @throws NullPointerException when {@code options} is null
     */
    public static BladeWebFilter start(BladeOptions options) {
        return new BladeWebFilter(Blade.attachEntry(options, LOG, "Blade WebFlux filter", "request").orElse(null));
    }

    /** @return a filter that passes every request through and never sheds */
    static BladeWebFilter passThrough() {
        return new BladeWebFilter(null);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        BladeNode n = node();
        if (n == null) {
            return chain.filter(exchange);
        }
        // entered on subscription, so that each subscription that enters leaves exactly once; the inner defer turns
        // a chain that throws instead of returning an error into one, which leaves too
        return Mono.defer(() -> {
            Gate gate = n.gate();
            if (!gate.tryEnter()) {
                return shed(exchange.getResponse(), n);
            }
            return Mono.defer(() -> chain.filter(exchange)).doFinally(signal -> gate.exit());
        });
    }

    private Mono<Void> shed(ServerHttpResponse response, BladeNode n) {
        long nanos = countShed(n);
        response.setStatusCode(HttpStatus.SERVICE_UNAVAILABLE);
        HttpHeaders headers = response.getHeaders();
        headers.set(HttpHeaders.RETRY_AFTER, Long.toString(RetryAfter.seconds(nanos)));
        headers.set(RetryAfter.MILLIS_HEADER, Long.toString(RetryAfter.millis(nanos)));
        headers.setCacheControl("no-store");
        return response.setComplete();
    }

    /** @return {@link Ordered#HIGHEST_PRECEDENCE}: first among the application's filters */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
