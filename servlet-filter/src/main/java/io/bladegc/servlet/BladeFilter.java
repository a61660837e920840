package io.bladegc.servlet;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptionsParser;
import io.bladegc.api.Gate;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Puts a webapp behind the Blade gate of its JVM: counts requests in flight, sheds new requests with {@code 503}
 * while Blade drains the node for a planned collection, answers the load balancer's readiness checks, and records
 * how much GC pause time overlapped each request.
 *
 * <h2>Registration</h2>
 * Map it first in the chain, on {@code /*}, once, with async support (an async servlet behind a filter without it
 * fails):
 * <pre>{@code
 * <filter>
 *   <filter-name>blade</filter-name>
 *   <filter-class>io.bladegc.servlet.BladeFilter</filter-class>
 *   <async-supported>true</async-supported>
 * </filter>
 * <filter-mapping>
 *   <filter-name>blade</filter-name>
 *   <url-pattern>/*</url-pattern>
 * </filter-mapping>
 * }</pre>
 * Only {@link DispatcherType#REQUEST} dispatches are counted, so mapping it for other dispatcher types as well is
 * harmless. So is a second Blade entry on the same request (another Blade filter further down the chain, or the
 * agent's servlet instrumentation): whoever admits a request marks it with the request attribute
 * {@value Gate#ADMITTED_ATTRIBUTE}, and an entry that finds the mark passes the request on uncounted and unshed.
 *
 * <h2>The node</h2>
 * {@code init} joins the JVM's Blade node ({@link Blade#node()}: the one the {@code -javaagent} or another webapp
 * started, across class loaders) or, when there is none, starts one in GCI mode with {@link Blade#startNode} and the
 * Blade options given as init-params; then it attaches to the node's gate. {@code destroy} detaches. The node
 * outlives the filter, also when this filter started it (another webapp may be using it); an application that
 * wants it gone calls {@link Blade#stopNode()} on shutdown.
 *
 * <h2>Init-params</h2>
 * <ul>
 *   <li>{@value #READINESS_PATH_PARAM}: the readiness endpoint, relative to the context path (default
 *       {@value #DEFAULT_READINESS_PATH}; empty for none). It answers {@code 200 ready} while the gate is open and
 *       {@code 503 draining} (with {@code Retry-After}) while it is closed; it is neither counted nor shed, and the
 *       application behind the filter never sees it. Tomcat runs filters only on paths some servlet is mapped to:
 *       there the endpoint needs a servlet on {@code /} (a standalone Tomcat's default servlet, Spring's
 *       {@code DispatcherServlet}); an embedded Tomcat without one answers {@code 404}.</li>
 *   <li>{@value #GC_OVERLAP_PARAM}: {@code true} to time every request and record its GC overlap in
 *       {@link #gcOverlap()}; default {@code false}, because the two clock reads it takes (about 20-25 ns each on
 *       Linux, more on some virtual machines) are most of the filter's cost (see {@code benchmarks/RESULTS.md}).</li>
 *   <li>the Blade options {@link BladeOptionsParser#KEYS} in {@link BladeOptionsParser}'s formats (e.g.
 *       {@code drainTimeout=250ms}): used only when this filter starts the node; {@code enabled=false} turns the
 *       filter into a pass-through. {@code strict} is accepted but never makes the filter fail.</li>
 * </ul>
 * A bad init-param never fails the webapp: the filter logs one line naming it and the valid keys (as
 * {@link SettingNames} names them: the init-params, or a framework's own names for them), and runs as a
 * pass-through that never sheds. So it does when the node cannot be reached or started.
 *
 * <h2>Per request</h2>
 * <ul>
 *   <li>Open gate: the request enters (one atomic add), is marked with the request attribute
 *       {@value Gate#ADMITTED_ATTRIBUTE} (one attribute lookup before entering, one set after), runs, and leaves
 *       (one atomic add) when the chain returns, also when it throws, or, if it went asynchronous, when the async
 *       cycle completes (an {@code AsyncListener} leaves exactly once, in {@code onComplete}). With
 *       {@value #GC_OVERLAP_PARAM} on, add two {@link System#nanoTime()} reads, two reads of the node's pause
 *       counter and one atomic add into {@link #gcOverlap()}. The filter allocates nothing for a synchronous request
 *       (the container may, to store the attribute); an asynchronous one costs one listener.</li>
 *   <li>Closed gate: a new request gets {@code 503}, {@code Retry-After} in whole seconds (RFC 9110
 *       delay-seconds: the node's {@link BladeNode#retryAfter()} rounded up, at least 1) and
 *       {@value #RETRY_AFTER_MS_HEADER} with the same hint in milliseconds; the {@code Connection} header is left
 *       to the container. A request admitted before the gate closed is never shed or cut off.</li>
 * </ul>
 *
 * <h2>Metrics</h2>
 * {@link #shedCount()}, {@link #inFlight()}, {@link #isGateOpen()} and {@link #gcOverlap()} are always available.
 * Micrometer meters are registered when the application supplies a
 * {@code io.micrometer.core.instrument.MeterRegistry}, either with {@link #BladeFilter(Object)} or as the servlet
 * context attribute {@value #METER_REGISTRY_ATTRIBUTE}; Micrometer is an optional dependency and is not touched
 * otherwise. The meters, removed again in {@code destroy}:
 * <ul>
 *   <li>{@code blade.gate.shed} (function counter): requests this filter answered 503;</li>
 *   <li>{@code blade.gate.inflight} (gauge): requests in flight through the node's gate;</li>
 *   <li>{@code blade.gate.open} (gauge): 1 while the gate admits requests, 0 while it is closed;</li>
 *   <li>{@code blade.request.gc.overlap} (timer): the GC pause time that overlapped a request, one sample per
 *       request that overlapped any pause (the others are not recorded, so the request thread touches Micrometer
 *       only after a pause);</li>
 *   <li>{@code blade.request.gc.share} (gauge, tag {@code slower.than} = {@code 10ms}, {@code 100ms}, {@code 1s}):
 *       of the requests about that slow or slower, the share that overlapped a GC pause.</li>
 * </ul>
 *
 * <h2>javax.servlet</h2>
 * For a container on the {@code javax.servlet} API (Servlet 4: Tomcat 9, Jetty 10, Spring Boot 2), use
 * {@code io.bladegc.servlet.javax.BladeFilter} from {@code io.bladegc:blade-servlet-filter-javax}: the same filter
 * (same constructors, init-params, behaviour and meters) on the older API. It is generated from this class's class
 * file at build time, with {@code jakarta.servlet} renamed to {@code javax.servlet}, so what this page says holds
 * for it too, with {@code io.bladegc.servlet.javax.BladeFilter} for this class's name. Both share the request path,
 * written once in {@link AbstractBladeFilter}.
 *
 * <p>Thread-safe: {@code doFilter} may run on any number of threads; {@code init} and {@code destroy} are called
 * by the container once each.
 */
public class BladeFilter
    extends AbstractBladeFilter<HttpServletRequest, HttpServletResponse, FilterChain, ServletException>
    implements Filter {

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
        this(meterRegistry, SettingNames.INIT_PARAMS);
    }

    /**
     * A filter that a framework configures from its own settings (as the Spring Boot starter does from its
     * {@code blade.*} properties): its log lines name a bad setting, and list the valid ones, as {@code names} says.
     *
     * @param meterRegistry as for {@link #BladeFilter(Object)}
     * @param names         how the log lines name the init-params
     */
    public BladeFilter(Object meterRegistry, SettingNames names) {
        super(System.getLogger(BladeFilter.class.getName()), meterRegistry, names);
    }

    @Override
    public void init(FilterConfig config) {
        ServletContext context = config.getServletContext();
        start(config.getFilterName(), context == null ? null : context.getContextPath(),
            config.getInitParameterNames(), config::getInitParameter,
            context == null ? null : context.getAttribute(METER_REGISTRY_ATTRIBUTE));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
        if (request.getDispatcherType() == DispatcherType.REQUEST
            && request instanceof HttpServletRequest req && response instanceof HttpServletResponse res) {
            filter(req, req.getRequestURI(), req.getContextPath(), res, chain);
        } else {
            chain.doFilter(request, response); // forwards, includes, async and error dispatches: counted already
        }
    }

    @Override
    protected final void proceed(FilterChain chain, HttpServletRequest req, HttpServletResponse res)
        throws IOException, ServletException {
        chain.doFilter(req, res);
    }

    @Override
    protected final Object attribute(HttpServletRequest req, String name) {
        return req.getAttribute(name);
    }

    @Override
    protected final void setAttribute(HttpServletRequest req, String name, Object value) {
        req.setAttribute(name, value);
    }

    @Override
    protected final boolean isAsyncStarted(HttpServletRequest req) {
        return req.isAsyncStarted();
    }

    @Override
    protected final void addInFlightListener(HttpServletRequest req, FilterCore core, BladeNode n, long startNanos,
                                             long pauseAtEntry) {
        req.getAsyncContext().addListener(new InFlightListener(core, n, startNanos, pauseAtEntry));
    }

    @Override
    protected final void setStatus(HttpServletResponse res, int status) {
        res.setStatus(status);
    }

    @Override
    protected final void setHeader(HttpServletResponse res, String name, String value) {
        res.setHeader(name, value);
    }

    @Override
    protected final void writeText(HttpServletResponse res, String contentType, String text) throws IOException {
        res.setContentType(contentType);
        res.getWriter().write(text);
    }
}
