package io.bladegc.servlet.javax;

import io.bladegc.api.BladeNode;
import io.bladegc.servlet.FilterCore;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.servlet.AsyncEvent;
import javax.servlet.AsyncListener;

/**
 * Keeps an asynchronous request counted in flight until it really ends: the javax twin of the Jakarta filter's
 * listener. {@link BladeFilter} attaches one to a request whose dispatch returned with async started; it leaves the
 * gate exactly once, in {@link #onComplete}.
 *
 * <p>Allocated only for asynchronous requests. Thread-safe: the container may call it from any thread.
 */
final class InFlightListener implements AsyncListener {
    private final FilterCore core;
    private final BladeNode node;
    private final long startNanos;
    private final long pauseAtEntry;
    private final AtomicBoolean left = new AtomicBoolean();

    InFlightListener(FilterCore core, BladeNode node, long startNanos, long pauseAtEntry) {
        this.core = core;
        this.node = node;
        this.startNanos = startNanos;
        this.pauseAtEntry = pauseAtEntry;
    }

    /** The request is finished: it leaves the gate (once, even if a container were to call this twice). */
    @Override
    public void onComplete(AsyncEvent event) {
        if (left.compareAndSet(false, true)) {
            core.leave(node, startNanos, pauseAtEntry);
        }
    }

    /**
     * Nothing to do: the request is still in flight. After a timeout the container dispatches the error and, unless
     * the cycle is restarted, completes the request: {@link #onComplete} follows, where the request leaves.
     */
    @Override
    public void onTimeout(AsyncEvent event) {
        // left in onComplete, which always follows
    }

    /** Nothing to do, for the same reason as {@link #onTimeout}: {@link #onComplete} always follows an error. */
    @Override
    public void onError(AsyncEvent event) {
        // left in onComplete, which always follows
    }

    /**
     * The application called {@code startAsync} again. The container drops every listener when a new async cycle
     * starts, so this one registers itself again to still see the end.
     */
    @Override
    public void onStartAsync(AsyncEvent event) {
        try {
            event.getAsyncContext().addListener(this);
        } catch (IllegalStateException | NullPointerException e) {
            // cannot follow the new cycle: leave now rather than hold the gate's count up forever
            onComplete(event);
        }
    }
}
