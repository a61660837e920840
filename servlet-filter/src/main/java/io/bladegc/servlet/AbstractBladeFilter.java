package io.bladegc.servlet;

import io.bladegc.api.BladeNode;
import io.bladegc.api.Gate;
import java.io.IOException;
import java.util.Enumeration;
import java.util.function.Function;

/**
 * The Blade filter written once for both servlet APIs: what a request goes through (readiness endpoint, gate,
 * {@code 503} with the {@link RetryHint}, the {@value Gate#ADMITTED_ATTRIBUTE} mark, leaving the gate now or when the
 * async cycle completes) and the filter's public view of its {@link FilterCore}. The Jakarta
 * {@link BladeFilter io.bladegc.servlet.BladeFilter} and the javax {@code io.bladegc.servlet.javax.BladeFilter}
 * (module {@code blade-servlet-filter-javax}, generated from the Jakarta one's class file) extend it with the few
 * calls that name their API's types; applications use one of those, and read the Jakarta one for the behaviour.
 *
 * <p>Thread-safe: {@link #filter} may run on any number of threads; {@link #start} and {@link #destroy} are called
 * once each, by the filter's {@code init} and {@code destroy}.
 *
 * @param <Q> the API's {@code HttpServletRequest}
 * @param <S> the API's {@code HttpServletResponse}
 * @param <C> the API's {@code FilterChain}
 * @param <X> the API's {@code ServletException}
 */
public abstract class AbstractBladeFilter<Q, S, C, X extends Exception> {

    /** Init-param naming the readiness endpoint. */
    public static final String READINESS_PATH_PARAM = FilterCore.READINESS_PATH_PARAM;

    /** Init-param switching the per-request GC-overlap measurement ({@link #gcOverlap()}); default {@code false}. */
    public static final String GC_OVERLAP_PARAM = FilterCore.GC_OVERLAP_PARAM;

    /** The readiness endpoint when {@value #READINESS_PATH_PARAM} is not given. */
    public static final String DEFAULT_READINESS_PATH = FilterCore.DEFAULT_READINESS_PATH;

    /** Servlet context attribute under which the application may put its Micrometer {@code MeterRegistry}. */
    public static final String METER_REGISTRY_ATTRIBUTE = FilterCore.METER_REGISTRY_ATTRIBUTE;

    /** Response header with the retry hint in milliseconds, beside {@code Retry-After} in seconds. */
    public static final String RETRY_AFTER_MS_HEADER = FilterCore.RETRY_AFTER_MS_HEADER;

    private static final int SC_OK = 200;
    private static final int SC_SERVICE_UNAVAILABLE = 503;
    private static final String TEXT = "text/plain;charset=UTF-8";

    private final FilterCore core;

    /**
     * A pass-through until {@link #start}.
     *
     * @param log           the filter's logger (named for the API's filter class)
     * @param meterRegistry an {@code io.micrometer.core.instrument.MeterRegistry}, or {@code null} to take the one
     *                      the servlet context supplies; anything else is logged and ignored
     * @param names         how the log lines name the init-params
     */
    protected AbstractBladeFilter(System.Logger log, Object meterRegistry, SettingNames names) {
        this.core = new FilterCore(log, meterRegistry, names);
    }

    /**
     * The filter's {@code init}: see {@link FilterCore#start}, which takes the same arguments.
     *
     * @param filterName      the filter's name
     * @param contextPath     the webapp's context path, {@code null} when there is no context
     * @param initParamNames  the init-params' names
     * @param initParam       the value of an init-param, by name
     * @param contextRegistry the servlet context attribute {@value #METER_REGISTRY_ATTRIBUTE}, or {@code null}
     */
    protected final void start(String filterName, String contextPath, Enumeration<String> initParamNames,
                               Function<String, String> initParam, Object contextRegistry) {
        core.start(filterName, contextPath, initParamNames, initParam, contextRegistry);
    }

    /**
     * The filter's {@code doFilter} for an HTTP {@code REQUEST} dispatch (the API's filter passes other dispatches
     * and non-HTTP requests straight on: they were counted already, or are never counted).
     *
     * @param req         the request
     * @param requestUri  its {@code getRequestURI()}
     * @param contextPath its {@code getContextPath()}
     * @param res         the response
     * @param chain       the rest of the chain
     * @throws IOException as the chain or the response's writer throws it
     * @throws X           as the chain throws it
     */
    protected final void filter(Q req, String requestUri, String contextPath, S res, C chain)
        throws IOException, X {
        BladeNode n = core.node();
        if (core.isReadinessProbe(requestUri, contextPath)) {
            answerReadiness(n, res);
            return;
        }
        if (n == null || attribute(req, Gate.ADMITTED_ATTRIBUTE) != null) {
            proceed(chain, req, res); // pass-through, or admitted by an outer Blade entry
            return;
        }
        long startNanos = core.startNanos();
        long pauseAtEntry = core.pauseNanos(n);
        if (!n.gate().tryEnter()) {
            core.countShed();
            answerShed(n, res);
            return;
        }
        try {
            setAttribute(req, Gate.ADMITTED_ATTRIBUTE, Boolean.TRUE);
            proceed(chain, req, res);
        } finally {
            if (!handedToAsync(req, n, startNanos, pauseAtEntry)) {
                core.leave(n, startNanos, pauseAtEntry);
            }
        }
    }

    /** @return whether the request went async and will leave the gate in its {@link InFlightRequest} */
    private boolean handedToAsync(Q req, BladeNode n, long startNanos, long pauseAtEntry) {
        try {
            if (!isAsyncStarted(req)) {
                return false;
            }
            addInFlightListener(req, core, n, startNanos, pauseAtEntry);
            return true;
        } catch (IllegalStateException e) {
            return false; // the async cycle is already over: leave now
        }
    }

    /** Answers a shed request: {@code 503} with the retry hint. */
    private void answerShed(BladeNode n, S res) throws IOException {
        RetryHint hint = RetryHint.of(n);
        setStatus(res, SC_SERVICE_UNAVAILABLE);
        setHeader(res, "Retry-After", Long.toString(hint.seconds()));
        setHeader(res, RETRY_AFTER_MS_HEADER, Long.toString(hint.millis()));
        setHeader(res, "Cache-Control", "no-store");
        writeText(res, TEXT, "draining");
    }

    /** Answers the readiness endpoint; a pass-through filter ({@code n} null) is always ready. */
    private void answerReadiness(BladeNode n, S res) throws IOException {
        if (FilterCore.isReady(n)) {
            setStatus(res, SC_OK);
            setHeader(res, "Cache-Control", "no-store");
            writeText(res, TEXT, "ready");
        } else {
            answerShed(n, res);
        }
    }

    /** {@code chain.doFilter(req, res)}. */
    protected abstract void proceed(C chain, Q req, S res) throws IOException, X;

    /** {@code req.getAttribute(name)}. */
    protected abstract Object attribute(Q req, String name);

    /** {@code req.setAttribute(name, value)}. */
    protected abstract void setAttribute(Q req, String name, Object value);

    /** {@code req.isAsyncStarted()}. */
    protected abstract boolean isAsyncStarted(Q req);

    /**
     * Adds to the request's async context the API's listener: an {@link InFlightRequest} made of these arguments.
     *
     * @throws IllegalStateException when the async cycle is already over
     */
    protected abstract void addInFlightListener(Q req, FilterCore core, BladeNode n, long startNanos,
                                                long pauseAtEntry);

    /** {@code res.setStatus(status)}. */
    protected abstract void setStatus(S res, int status);

    /** {@code res.setHeader(name, value)}. */
    protected abstract void setHeader(S res, String name, String value);

    /** {@code res.setContentType(contentType)}, then {@code res.getWriter().write(text)}. */
    protected abstract void writeText(S res, String contentType, String text) throws IOException;

    /** The filter's {@code destroy}: detaches from the gate and removes the meters; see {@link FilterCore#stop}. */
    public void destroy() {
        core.stop();
    }

    /**
     * The GC attribution of the requests this filter admitted: durations and the pause time that overlapped them.
     *
     * @return the live histogram (never {@code null}); take a {@link GcOverlapHistogram#snapshot()} to query it
     */
    public GcOverlapHistogram gcOverlap() {
        return core.gcOverlap();
    }

    /** @return requests this filter answered with 503 because the gate was closed */
    public long shedCount() {
        return core.shedCount();
    }

    /** @return requests in flight through the node's gate (all webapps on the node); 0 for a pass-through */
    public long inFlight() {
        return core.inFlight();
    }

    /** @return whether the gate admits new requests; always {@code true} for a pass-through */
    public boolean isGateOpen() {
        return core.isGateOpen();
    }

    /** @return whether this filter only passes requests on (bad init-params, disabled, no node, or destroyed) */
    public boolean isPassThrough() {
        return core.isPassThrough();
    }
}
