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
import java.lang.System.Logger.Level;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

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
 * harmless.
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
 *       application behind the filter never sees it.</li>
 *   <li>{@value #GC_OVERLAP_PARAM}: {@code true} to time every request and record its GC overlap in
 *       {@link #gcOverlap()}; default {@code false}, because the two clock reads it takes (about 20-25 ns each on
 *       Linux, more on some virtual machines) are most of the filter's cost (see {@code benchmarks/RESULTS.md}).</li>
 *   <li>the Blade options {@link BladeOptionsParser#KEYS} in {@link BladeOptionsParser}'s formats (e.g.
 *       {@code drainTimeout=250ms}): used only when this filter starts the node; {@code enabled=false} turns the
 *       filter into a pass-through. {@code strict} is accepted but never makes the filter fail.</li>
 * </ul>
 * A bad init-param never fails the webapp: the filter logs one line naming it and the valid keys, and runs as a
 * pass-through that never sheds. So it does when the node cannot be reached or started.
 *
 * <h2>Per request</h2>
 * <ul>
 *   <li>Open gate: the request enters (one atomic add), runs, and leaves (one atomic add) when the chain returns,
 *       also when it throws, or, if it went asynchronous, when the async cycle completes
 *       (an {@code AsyncListener} leaves exactly once, in {@code onComplete}). With {@value #GC_OVERLAP_PARAM} on,
 *       add two {@link System#nanoTime()} reads, two reads of the node's pause counter and one atomic add into
 *       {@link #gcOverlap()}. Nothing is allocated for a synchronous request; an asynchronous one costs one
 *       listener.</li>
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
 * <p>Thread-safe: {@code doFilter} may run on any number of threads; {@code init} and {@code destroy} are called
 * by the container once each.
 */
public class BladeFilter implements Filter {

    /** Init-param naming the readiness endpoint. */
    public static final String READINESS_PATH_PARAM = "readinessPath";

    /** Init-param switching the per-request GC-overlap measurement ({@link #gcOverlap()}); default {@code false}. */
    public static final String GC_OVERLAP_PARAM = "gcOverlap";

    /** The readiness endpoint when {@value #READINESS_PATH_PARAM} is not given. */
    public static final String DEFAULT_READINESS_PATH = "/blade/ready";

    /** Servlet context attribute under which the application may put its Micrometer {@code MeterRegistry}. */
    public static final String METER_REGISTRY_ATTRIBUTE = "io.micrometer.core.instrument.MeterRegistry";

    /** Response header with the retry hint in milliseconds, beside {@code Retry-After} in seconds. */
    public static final String RETRY_AFTER_MS_HEADER = "Blade-Retry-After-Ms";

    private static final System.Logger LOG = System.getLogger(BladeFilter.class.getName());

    private final Object suppliedRegistry;
    private final GcOverlapHistogram gcOverlap = new GcOverlapHistogram();
    private final LongAdder shed = new LongAdder();

    // Written by init (and node, gate by destroy), read by request threads. node is written before gate and cleared
    // after it, and request threads read gate first, so a non-null gate always comes with its node.
    private volatile BladeNode node;
    private volatile Gate gate;
    private volatile String readinessPath = DEFAULT_READINESS_PATH;
    private volatile boolean timing;
    private AutoCloseable metrics;

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
        this.suppliedRegistry = meterRegistry;
    }

    @Override
    public void init(FilterConfig config) {
        ServletContext context = config.getServletContext();
        String where = "Blade filter '" + config.getFilterName() + "'"
            + (context == null ? "" : " in context '" + context.getContextPath() + "'");
        FilterSettings settings = FilterSettings.read(config);
        readinessPath = settings.readinessPath();
        timing = settings.gcOverlap();
        bindMetrics(context, where);
        if (!settings.ok()) {
            LOG.log(Level.WARNING, where + ": bad init-param: " + String.join("; ", settings.errors())
                + "; valid init-params: " + FilterSettings.validKeys()
                + "; running as a pass-through that never sheds");
            return;
        }
        if (!settings.options().enabled()) {
            LOG.log(Level.INFO, where + ": disabled by init-param enabled=false; running as a pass-through");
            return;
        }
        try {
            Optional<BladeNode> running = Blade.node();
            BladeNode n = running.isPresent() ? running.get() : Blade.startNode(settings.options());
            n.attachGate();
            node = n;
            gate = n.gate();
            String how = running.isPresent()
                ? "joined the running Blade node" + (settings.optionsGiven()
                    ? " (its own options apply; this filter's Blade init-params are ignored)" : "")
                : "started a Blade node (GCI mode)";
            LOG.log(Level.INFO, where + ": " + how + "; readiness endpoint "
                + (readinessPath.isEmpty() ? "off" : readinessPath) + "; " + summary(n));
        } catch (RuntimeException | LinkageError e) {
            gate = null;
            node = null;
            LOG.log(Level.WARNING, where + ": cannot reach or start the Blade node (" + e
                + "); running as a pass-through that never sheds", e);
        }
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
        if (request.getDispatcherType() != DispatcherType.REQUEST
            || !(request instanceof HttpServletRequest req) || !(response instanceof HttpServletResponse res)) {
            chain.doFilter(request, response); // forwards, includes, async and error dispatches: counted already
            return;
        }
        Gate g = gate;
        BladeNode n = node;
        if (isReadinessProbe(req)) {
            DrainingResponse.readiness(g, n, res);
            return;
        }
        if (g == null || n == null) {
            chain.doFilter(request, response); // pass-through
            return;
        }
        long startNanos = 0;
        long pauseAtEntry = 0;
        if (timing) {
            startNanos = System.nanoTime();
            pauseAtEntry = n.pauseNanos();
        }
        if (!g.tryEnter()) {
            shed(n, res);
            return;
        }
        try {
            chain.doFilter(request, response);
        } finally {
            if (!handedToAsync(req, g, n, startNanos, pauseAtEntry)) {
                leave(g, n, startNanos, pauseAtEntry);
            }
        }
    }

    /**
     * Leaves the gate for an admitted request and records its duration and GC overlap.
     *
     * @param g            the gate the request entered
     * @param n            the node that gate belongs to
     * @param startNanos   {@link System#nanoTime()} at entry (0 when not timing)
     * @param pauseAtEntry the node's pause counter at entry (0 when not timing)
     */
    void leave(Gate g, BladeNode n, long startNanos, long pauseAtEntry) {
        try {
            // recorded before leaving, so that a drained gate implies complete statistics
            if (timing) {
                gcOverlap.record(System.nanoTime() - startNanos, n.pauseNanos() - pauseAtEntry);
            }
        } finally {
            g.exit();
        }
    }

    /** @return whether the request went async and will leave the gate in {@link InFlightListener#onComplete} */
    private boolean handedToAsync(HttpServletRequest req, Gate g, BladeNode n, long startNanos, long pauseAtEntry) {
        try {
            if (!req.isAsyncStarted()) {
                return false;
            }
            req.getAsyncContext().addListener(new InFlightListener(this, g, n, startNanos, pauseAtEntry));
            return true;
        } catch (IllegalStateException e) {
            return false; // the async cycle is already over: leave now
        }
    }

    private boolean isReadinessProbe(HttpServletRequest req) {
        String path = readinessPath;
        if (path.isEmpty()) {
            return false;
        }
        // contextPath + path == requestURI, without building a string
        String uri = req.getRequestURI();
        String context = req.getContextPath();
        return uri != null && context != null && uri.length() == context.length() + path.length()
            && uri.startsWith(context) && uri.startsWith(path, context.length());
    }

    private void shed(BladeNode n, HttpServletResponse res) throws IOException {
        shed.increment();
        DrainingResponse.write(n, res);
    }

    @Override
    public void destroy() {
        BladeNode n = node;
        gate = null;
        node = null;
        if (n != null) {
            try {
                n.detachGate();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Blade filter: cannot detach from the Blade node: " + e, e);
            }
        }
        closeMetrics();
    }

    /**
     * The GC attribution of the requests this filter admitted: durations and the pause time that overlapped them.
     *
     * @return the live histogram (never {@code null}); take a {@link GcOverlapHistogram#snapshot()} to query it
     */
    public GcOverlapHistogram gcOverlap() {
        return gcOverlap;
    }

    /** @return requests this filter answered with 503 because the gate was closed */
    public long shedCount() {
        return shed.sum();
    }

    /** @return requests in flight through the node's gate (all webapps on the node); 0 for a pass-through */
    public long inFlight() {
        Gate g = gate;
        return g == null ? 0 : g.inFlight();
    }

    /** @return whether the gate admits new requests; always {@code true} for a pass-through */
    public boolean isGateOpen() {
        Gate g = gate;
        return g == null || g.isOpen();
    }

    /** @return whether this filter only passes requests on (bad init-params, disabled, no node, or destroyed) */
    public boolean isPassThrough() {
        return gate == null;
    }

    private void bindMetrics(ServletContext context, String where) {
        Object registry = suppliedRegistry;
        if (registry == null && context != null) {
            registry = context.getAttribute(METER_REGISTRY_ATTRIBUTE);
        }
        if (registry == null) {
            return;
        }
        try {
            // Probe before touching FilterMetrics: that class links against Micrometer.
            Class<?> type = Class.forName(METER_REGISTRY_ATTRIBUTE, false, BladeFilter.class.getClassLoader());
            if (!type.isInstance(registry)) {
                LOG.log(Level.WARNING, where + ": ignoring the meter registry " + registry.getClass().getName()
                    + ": not a " + METER_REGISTRY_ATTRIBUTE + " of this class loader; no Blade meters");
                return;
            }
            AutoCloseable bound = FilterMetrics.bind(registry, this);
            synchronized (this) {
                metrics = bound;
            }
        } catch (ClassNotFoundException | LinkageError e) {
            LOG.log(Level.WARNING, where + ": a meter registry was supplied but Micrometer is not on this webapp's "
                + "class path (" + e + "); no Blade meters");
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, where + ": cannot register the Blade meters: " + e, e);
        }
    }

    private void closeMetrics() {
        AutoCloseable m;
        synchronized (this) {
            m = metrics;
            metrics = null;
        }
        if (m != null) {
            try {
                m.close();
            } catch (Exception e) {
                LOG.log(Level.WARNING, "Blade filter: cannot remove the Blade meters: " + e, e);
            }
        }
    }

    private static String summary(BladeNode n) {
        try {
            return n.summary();
        } catch (RuntimeException e) {
            return "node summary unavailable: " + e;
        }
    }
}
