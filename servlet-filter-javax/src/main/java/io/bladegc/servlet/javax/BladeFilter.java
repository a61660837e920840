package io.bladegc.servlet.javax;

import io.bladegc.api.BladeNode;
import io.bladegc.api.Gate;
import io.bladegc.servlet.FilterCore;
import io.bladegc.servlet.GcOverlapHistogram;
import java.io.IOException;
import javax.servlet.DispatcherType;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The Blade filter for containers on the {@code javax.servlet} API (Servlet 4: Tomcat 9, Jetty 10, Spring Boot 2;
 * tested on Tomcat 9). It differs from the Jakarta {@code io.bladegc.servlet.BladeFilter} in nothing but the
 * servlet API it implements: the same init-params, the same behaviour (counting in flight, async included;
 * {@code 503} with {@code Retry-After} and {@value #RETRY_AFTER_MS_HEADER} while the gate is closed; the readiness
 * endpoint; the GC overlap; the {@value io.bladegc.api.Gate#ADMITTED_ATTRIBUTE} mark against counting a request
 * twice), the same log lines (under this class's name) and the same Micrometer meters ({@code blade.gate.shed},
 * {@code blade.gate.inflight}, {@code blade.gate.open}, {@code blade.request.gc.overlap},
 * {@code blade.request.gc.share}). Both delegate to {@link FilterCore}; read the Jakarta class for the details.
 *
 * <p>Registration in a {@code web.xml}: as for the Jakarta filter, with
 * {@code <filter-class>io.bladegc.servlet.javax.BladeFilter</filter-class>}, first in the chain, on {@code /*}, with
 * {@code <async-supported>true</async-supported>}. In Spring Boot 2: a {@code FilterRegistrationBean} of
 * {@code new BladeFilter(meterRegistry)} with the highest precedence and async support. Tomcat runs filters only on
 * paths some servlet is mapped to, so the readiness endpoint needs a servlet on {@code /} (a standalone Tomcat's
 * default servlet, Spring's {@code DispatcherServlet}); an embedded Tomcat without one answers {@code 404} there.
 *
 * <p>Thread-safe: {@code doFilter} may run on any number of threads; {@code init} and {@code destroy} are called
 * by the container once each.
 */
public class BladeFilter implements Filter {

    /** Init-param naming the readiness endpoint; see {@code io.bladegc.servlet.BladeFilter}. */
    public static final String READINESS_PATH_PARAM = FilterCore.READINESS_PATH_PARAM;

    /** Init-param switching the per-request GC-overlap measurement ({@link #gcOverlap()}); default {@code false}. */
    public static final String GC_OVERLAP_PARAM = FilterCore.GC_OVERLAP_PARAM;

    /** The readiness endpoint when {@value #READINESS_PATH_PARAM} is not given. */
    public static final String DEFAULT_READINESS_PATH = FilterCore.DEFAULT_READINESS_PATH;

    /** Servlet context attribute under which the application may put its Micrometer {@code MeterRegistry}. */
    public static final String METER_REGISTRY_ATTRIBUTE = FilterCore.METER_REGISTRY_ATTRIBUTE;

    /** Response header with the retry hint in milliseconds, beside {@code Retry-After} in seconds. */
    public static final String RETRY_AFTER_MS_HEADER = FilterCore.RETRY_AFTER_MS_HEADER;

    private final FilterCore core;

    /** A filter configured by its init-params, without Micrometer meters unless the servlet context supplies them. */
    public BladeFilter() {
        this(null);
    }

    /**
     * A filter that registers its meters in the given registry.
     *
     * @param meterRegistry an {@code io.micrometer.core.instrument.MeterRegistry}, typed {@code Object} so that this
     *                      class does not need Micrometer; {@code null} for none (the servlet context attribute
     *                      {@value #METER_REGISTRY_ATTRIBUTE} is then consulted). Anything else is logged and
     *                      ignored.
     */
    public BladeFilter(Object meterRegistry) {
        this.core = new FilterCore(System.getLogger(BladeFilter.class.getName()), meterRegistry);
    }

    @Override
    public void init(FilterConfig config) {
        ServletContext context = config.getServletContext();
        core.start(config.getFilterName(), context == null ? null : context.getContextPath(),
            config.getInitParameterNames(), config::getInitParameter,
            context == null ? null : context.getAttribute(METER_REGISTRY_ATTRIBUTE));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
        if (request.getDispatcherType() != DispatcherType.REQUEST
            || !(request instanceof HttpServletRequest req) || !(response instanceof HttpServletResponse res)) {
            chain.doFilter(request, response); // forwards, includes, async and error dispatches: counted already
            return;
        }
        BladeNode n = core.node();
        if (core.isReadinessProbe(req.getRequestURI(), req.getContextPath())) {
            DrainingResponse.readiness(n, res);
            return;
        }
        if (n == null || req.getAttribute(Gate.ADMITTED_ATTRIBUTE) != null) {
            chain.doFilter(request, response); // pass-through, or admitted by an outer Blade entry
            return;
        }
        long startNanos = core.startNanos();
        long pauseAtEntry = core.pauseNanos(n);
        if (!n.gate().tryEnter()) {
            core.countShed();
            DrainingResponse.write(n, res);
            return;
        }
        try {
            req.setAttribute(Gate.ADMITTED_ATTRIBUTE, Boolean.TRUE);
            chain.doFilter(request, response);
        } finally {
            if (!handedToAsync(req, n, startNanos, pauseAtEntry)) {
                core.leave(n, startNanos, pauseAtEntry);
            }
        }
    }

    /** @return whether the request went async and will leave the gate in {@link InFlightListener#onComplete} */
    private boolean handedToAsync(HttpServletRequest req, BladeNode n, long startNanos, long pauseAtEntry) {
        try {
            if (!req.isAsyncStarted()) {
                return false;
            }
            req.getAsyncContext().addListener(new InFlightListener(core, n, startNanos, pauseAtEntry));
            return true;
        } catch (IllegalStateException e) {
            return false; // the async cycle is already over: leave now
        }
    }

    @Override
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
