package io.bladegc.servlet;

import io.bladegc.api.BladeNode;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/**
 * The Jakarta {@code AsyncListener} of an {@link InFlightRequest}: {@code onComplete} leaves, {@code onStartAsync}
 * follows a restarted cycle, the rest wait (see {@link InFlightRequest} for why). Its class file is the javax one's
 * too, renamed (see {@link BladeFilter}). Thread-safe.
 */
final class InFlightListener extends InFlightRequest implements AsyncListener {
    InFlightListener(FilterCore core, BladeNode node, long startNanos, long pauseAtEntry) {
        super(core, node, startNanos, pauseAtEntry);
    }

    @Override
    public void onComplete(AsyncEvent event) {
        leave();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        // left in onComplete, which always follows
    }

    @Override
    public void onError(AsyncEvent event) {
        // left in onComplete, which always follows
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        try {
            event.getAsyncContext().addListener(this);
        } catch (IllegalStateException | NullPointerException e) {
            leave(); // cannot follow the new cycle: leave now rather than hold the gate's count up forever
        }
    }
}
