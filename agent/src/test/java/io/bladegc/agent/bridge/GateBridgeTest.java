package io.bladegc.agent.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The bridge the servlet advice calls: entering, the retry headers, and the asynchronous listener. */
class GateBridgeTest {
    private final AtomicInteger entered = new AtomicInteger();
    private final AtomicInteger left = new AtomicInteger();
    private volatile boolean open = true;
    private volatile long retryNanos = 1_500_000_000L;

    @BeforeEach
    void install() {
        GateBridge.install(() -> open && entered.incrementAndGet() > 0, left::incrementAndGet, () -> retryNanos);
    }

    @Test
    void anOpenGateAdmitsAClosedOneShedsAndCounts() {
        long shedBefore = GateBridge.shedCount();
        assertThat(GateBridge.enter()).isEqualTo(GateBridge.ADMITTED);
        open = false;
        assertThat(GateBridge.enter()).isEqualTo(GateBridge.SHED);
        assertThat(GateBridge.shedCount()).isEqualTo(shedBefore + 1);
        GateBridge.exit();
        assertThat(entered).hasValue(1);
        assertThat(left).hasValue(1);
    }

    @Test
    void marksAdmittedRequestsWithTheFiltersAttribute() {
        // a request the advice admitted is not counted again by a Blade filter behind it, and the other way round
        assertThat(GateBridge.ADMITTED_ATTRIBUTE).isEqualTo(io.bladegc.api.Gate.ADMITTED_ATTRIBUTE);
    }

    @Test
    void retryHeadersRoundUpAndStayInRange() {
        assertThat(GateBridge.retryAfterSeconds()).isEqualTo("2");
        assertThat(GateBridge.retryAfterMillis()).isEqualTo("1500");
        retryNanos = 1;
        assertThat(GateBridge.retryAfterSeconds()).isEqualTo("1");
        assertThat(GateBridge.retryAfterMillis()).isEqualTo("1");
        retryNanos = Long.MAX_VALUE;
        assertThat(GateBridge.retryAfterSeconds()).as("at most an hour").isEqualTo("3600");
    }

    @Test
    void theAsyncListenerLeavesOnceOnCompleteAndFollowsARestartedCycle() throws Exception {
        AsyncListener listener = (AsyncListener) GateBridge.asyncListener(AsyncListener.class);
        List<Object> added = new ArrayList<>();
        AsyncContext context = context(added, false);

        listener.onTimeout(new AsyncEvent(context));
        listener.onError(new AsyncEvent(context));
        assertThat(left).as("onComplete always follows a timeout or an error").hasValue(0);
        listener.onStartAsync(new AsyncEvent(context));
        assertThat(added).as("registered again for the new cycle").containsExactly(listener);
        listener.onComplete(new AsyncEvent(context));
        listener.onComplete(new AsyncEvent(context));
        assertThat(left).as("left exactly once").hasValue(1);
        assertThat(listener.toString()).isEqualTo("Blade in-flight listener");
        assertThat(listener).isEqualTo(listener).isNotEqualTo(GateBridge.asyncListener(AsyncListener.class));
    }

    @Test
    void aCycleItCannotFollowLeavesAtOnce() throws Exception {
        AsyncListener listener = (AsyncListener) GateBridge.asyncListener(AsyncListener.class);
        listener.onStartAsync(new AsyncEvent(context(new ArrayList<>(), true)));
        assertThat(left).hasValue(1);
    }

    /** An {@code AsyncContext} whose {@code addListener} records the listener, or fails. */
    private static AsyncContext context(List<Object> added, boolean failing) {
        return (AsyncContext) Proxy.newProxyInstance(GateBridgeTest.class.getClassLoader(),
            new Class<?>[] {AsyncContext.class}, (proxy, method, args) -> {
                if (method.getName().equals("addListener")) {
                    if (failing) {
                        throw new IllegalStateException("not in an async cycle");
                    }
                    added.add(args[0]);
                }
                return null;
            });
    }
}
