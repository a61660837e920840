package io.bladegc.agent.servlet;

import io.bladegc.agent.bridge.GateBridge;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import net.bytebuddy.asm.Advice;

/**
 * Advice inlined by Byte Buddy into every {@code Servlet.service} and {@code Filter.doFilter} of either servlet API
 * ({@code instrument=servlet}). The first such entry of a request (a {@code REQUEST} dispatch without
 * {@value GateBridge#ADMITTED_ATTRIBUTE}) passes it through the gate: admitted, it is marked and counted until the
 * entry returns or, if it went asynchronous, until the async cycle completes; shed, it gets the Blade filter's 503
 * with {@code Retry-After} and the method body does not run. Inner entries, forwards, includes and async dispatches
 * pass untouched, so a Blade filter behind it counts nothing twice.
 *
 * <p>Written once, against {@code jakarta.servlet}; {@link EntryAdviceTemplates} serves it as it is for Jakarta
 * containers and, with every {@code jakarta.servlet} type renamed to its {@code javax.servlet} twin, as
 * {@value EntryAdviceTemplates#JAVAX} for javax ones. So it may call only what both APIs declare alike (Servlet 3.0
 * and later). Never loaded itself, only read as a template.
 */
final class EntryAdvice {
    private EntryAdvice() {
    }

    /** @return {@code true} to skip the method: the request was shed and answered */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    static boolean enter(@Advice.Argument(0) ServletRequest request, @Advice.Argument(1) ServletResponse response,
                         @Advice.Local("bladeAdmitted") boolean admitted) {
        if (request.getDispatcherType() != DispatcherType.REQUEST
            || request.getAttribute(GateBridge.ADMITTED_ATTRIBUTE) != null) {
            return false;
        }
        int entry = GateBridge.enter();
        if (entry == GateBridge.ADMITTED) {
            admitted = true;
            request.setAttribute(GateBridge.ADMITTED_ATTRIBUTE, Boolean.TRUE);
            return false;
        }
        if (entry == GateBridge.PASS) {
            return false;
        }
        try {
            if (response instanceof HttpServletResponse) {
                HttpServletResponse res = (HttpServletResponse) response;
                res.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
                res.setHeader("Retry-After", GateBridge.retryAfterSeconds());
                res.setHeader("Blade-Retry-After-Ms", GateBridge.retryAfterMillis());
                res.setHeader("Cache-Control", "no-store");
                res.setContentType("text/plain;charset=UTF-8");
                res.getWriter().write("draining");
            }
        } catch (Throwable ignored) {
            // the request stays refused: it was never admitted
        }
        return true;
    }

    /** Leaves the gate for an admitted request, now or when its async cycle completes. */
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Argument(0) ServletRequest request, @Advice.Local("bladeAdmitted") boolean admitted) {
        if (!admitted) {
            return;
        }
        boolean async = false;
        try {
            if (request.isAsyncStarted()) {
                request.getAsyncContext().addListener((AsyncListener) GateBridge.asyncListener(AsyncListener.class));
                async = true;
            }
        } catch (RuntimeException e) {
            // the async cycle is already over, or the listener could not be added: leave now
        }
        if (!async) {
            GateBridge.exit();
        }
    }
}
