package io.bladegc.servlet.javax;

import io.bladegc.api.BladeNode;
import io.bladegc.servlet.FilterCore;
import io.bladegc.servlet.InFlightRequest;
import javax.servlet.AsyncEvent;
import javax.servlet.AsyncListener;

/**
 * The javax {@code AsyncListener} of an {@link InFlightRequest}: {@code onComplete} leaves, {@code onStartAsync}
 * follows a restarted cycle, the rest wait (see {@link InFlightRequest} for why). Thread-safe.
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
