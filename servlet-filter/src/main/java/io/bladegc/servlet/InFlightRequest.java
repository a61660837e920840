package io.bladegc.servlet;

import io.bladegc.api.BladeNode;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An admitted asynchronous request that is still in flight: the servlet-free part of the {@code AsyncListener} a Blade
 * filter attaches to a request whose dispatch returned with async started ({@code InFlightListener}, one per servlet
 * API, extends this). The request leaves the gate exactly once, in {@link #leave()}, which the listener calls from
 * {@code onComplete}.
 *
 * <p>{@code onTimeout} and {@code onError} do nothing: the request is still in flight. The servlet spec
 * (asynchronous processing; see the {@code AsyncContext} and {@code AsyncListener} Javadoc) follows a timeout with an
 * error dispatch unless a listener completes or dispatches, and after a timeout or an error the container completes
 * the request if nobody else does: every async cycle that is not restarted ends with {@code onComplete}. Leaving
 * there as well would count the request twice. When the application calls {@code startAsync} again (typically during
 * an {@code ASYNC} dispatch) the container drops every listener, so {@code onStartAsync} registers the listener again
 * to still see the end, and calls {@link #leave()} when it cannot.
 *
 * <p>Allocated only for asynchronous requests; the synchronous path never creates one. Thread-safe: the container
 * may call the listener from any thread.
 */
public abstract class InFlightRequest {
    private final FilterCore core;
    private final BladeNode node;
    private final long startNanos;
    private final long pauseAtEntry;
    private final AtomicBoolean left = new AtomicBoolean();

    /**
     * @param core         the filter's core
     * @param node         the node whose gate the request entered
     * @param startNanos   {@link FilterCore#startNanos()} at entry
     * @param pauseAtEntry {@link FilterCore#pauseNanos(BladeNode)} at entry
     */
    protected InFlightRequest(FilterCore core, BladeNode node, long startNanos, long pauseAtEntry) {
        this.core = core;
        this.node = node;
        this.startNanos = startNanos;
        this.pauseAtEntry = pauseAtEntry;
    }

    /** The request is finished: it leaves the gate (once, even if a container were to call this twice). */
    protected final void leave() {
        if (left.compareAndSet(false, true)) {
            core.leave(node, startNanos, pauseAtEntry);
        }
    }
}
