package io.bladegc.servlet;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.EntryNode;
import io.bladegc.api.Gate;
import io.bladegc.api.RetryAfter;
import java.lang.System.Logger.Level;
import java.util.Enumeration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The state of a Blade filter, which does not depend on a servlet API: {@link AbstractBladeFilter} keeps one, and
 * with it the Jakarta {@link BladeFilter io.bladegc.servlet.BladeFilter} and the javax
 * {@code io.bladegc.servlet.javax.BladeFilter} (module {@code blade-servlet-filter-javax}), which differ only in the
 * servlet types they take. Applications use one of those filters; this class is public only so that both can reach
 * it.
 *
 * <p>It reads the init-params ({@link #start}), joins or starts the JVM's Blade node and attaches to its gate,
 * answers the readiness decision ({@link #isReadinessProbe}, {@link #isReady}), times requests for the GC-overlap
 * histogram ({@link #startNanos()}, {@link #pauseNanos(BladeNode)}, {@link #leave}), counts shed requests
 * ({@link #countShed()}) and binds the Micrometer meters ({@link FilterMetrics}, which observes this class). A
 * filter asks {@link #node()} once per request: {@code null} means pass-through; otherwise the request enters that
 * node's {@link Gate} and, when admitted, leaves it through {@link #leave} exactly once.
 *
 * <p>Thread-safe: the per-request methods may run on any number of threads; {@link #start} and {@link #stop} are
 * meant to be called once each, by the filter's {@code init} and {@code destroy}.
 */
public final class FilterCore {
    /** Init-param naming the readiness endpoint. */
    public static final String READINESS_PATH_PARAM = "readinessPath";

    /** Init-param switching the per-request GC-overlap measurement; default {@code false}. */
    public static final String GC_OVERLAP_PARAM = "gcOverlap";

    /** The readiness endpoint when {@value #READINESS_PATH_PARAM} is not given. */
    public static final String DEFAULT_READINESS_PATH = "/blade/ready";

    /** Servlet context attribute under which the application may put its Micrometer {@code MeterRegistry}. */
    public static final String METER_REGISTRY_ATTRIBUTE = "io.micrometer.core.instrument.MeterRegistry";

    /** Response header with the retry hint in milliseconds, beside {@code Retry-After} in seconds. */
    public static final String RETRY_AFTER_MS_HEADER = RetryAfter.MILLIS_HEADER;

    private final System.Logger log;
    private final Object suppliedRegistry;
    private final SettingNames names;
    private final GcOverlapHistogram gcOverlap = new GcOverlapHistogram();
    private final LongAdder shed = new LongAdder();

    // Written by start (node also by stop), read by request threads.
    private volatile BladeNode node;
    private volatile String readinessPath = DEFAULT_READINESS_PATH;
    private volatile boolean timing;
    private AutoCloseable metrics;

    /**
     * A core that is a pass-through until {@link #start} attaches it to a node.
     *
     * @param log           where the filter's few lines go (the filter's own logger, so that it is configured by
     *                      the filter's class name)
     * @param meterRegistry an {@code io.micrometer.core.instrument.MeterRegistry}, or {@code null} to take the one
     *                      the servlet context supplies (see {@link #start}); anything else is logged and ignored
     * @param names         how the lines name the init-params: {@link SettingNames#INIT_PARAMS}, or a framework's
     *                      own names for them, e.g. the Spring Boot starter's properties
     */
    public FilterCore(System.Logger log, Object meterRegistry, SettingNames names) {
        this.log = log;
        this.suppliedRegistry = meterRegistry;
        this.names = Objects.requireNonNull(names, "names");
    }

    /**
     * The filter's {@code init}: reads the init-params, binds the meters, joins the JVM's Blade node or starts one
     * in GCI mode ({@link Blade#joinOrStart}) with the Blade options among the init-params, and attaches to its
     * gate. Never throws: a bad init-param, {@code enabled=false} or an unreachable node leave a pass-through, with
     * one log line saying why; so does an agent that is attached but left Blade off ({@link Blade#AGENT_OFF_PROPERTY}):
     * its options were refused or turned Blade off, and a node of the filter's would run Blade against them.
     *
     * @param filterName      the filter's name, for the log lines
     * @param contextPath     the webapp's context path, for the log lines; {@code null} when there is no context
     * @param initParamNames  the init-params' names ({@code null} for none)
     * @param initParam       the value of an init-param, by name
     * @param contextRegistry the servlet context attribute {@value #METER_REGISTRY_ATTRIBUTE}, or {@code null};
     *                        used when no registry was given to the constructor
     */
    public void start(String filterName, String contextPath, Enumeration<String> initParamNames,
                      Function<String, String> initParam, Object contextRegistry) {
        String where = "Blade filter '" + filterName + "'"
            + (contextPath == null ? "" : " in context '" + contextPath + "'");
        FilterSettings settings = FilterSettings.read(initParamNames, initParam, names);
        readinessPath = settings.readinessPath();
        timing = settings.gcOverlap();
        bindMetrics(suppliedRegistry != null ? suppliedRegistry : contextRegistry, where);
        if (!settings.ok()) {
            log.log(Level.WARNING, where + ": bad " + names.kind() + ": " + String.join("; ", settings.errors())
                + "; valid " + names.kindPlural() + ": " + names.valid()
                + "; running as a pass-through that never sheds");
            return;
        }
        if (!settings.options().enabled()) {
            log.log(Level.INFO, where + ": disabled by " + names.kind() + " " + names.name("enabled")
                + "=false; running as a pass-through");
            return;
        }
        try {
            Optional<EntryNode> entry = Blade.joinOrStart(settings.options());
            if (entry.isEmpty()) {
                log.log(Level.WARNING, where + ": the Blade agent in this JVM is off ("
                    + System.getProperty(Blade.AGENT_OFF_PROPERTY) + "); running as a pass-through that never sheds");
                return;
            }
            BladeNode n = entry.get().node();
            n.attachGate();
            node = n;
            String how = entry.get().joined()
                ? "joined the running Blade node" + (settings.optionsGiven()
                    ? " (its own options apply; this filter's Blade " + names.kindPlural() + " are ignored)" : "")
                : "started a Blade node (GCI mode)";
            log.log(Level.INFO, where + ": " + how + "; readiness endpoint "
                + (readinessPath.isEmpty() ? "off" : readinessPath) + "; " + summary(n));
        } catch (RuntimeException | LinkageError e) {
            node = null;
            log.log(Level.WARNING, where + ": cannot reach or start the Blade node (" + e
                + "); running as a pass-through that never sheds", e);
        }
    }

    /**
     * The filter's {@code destroy}: detaches from the node's gate and removes the meters. The node itself outlives
     * the filter. Requests still in flight leave the gate as usual.
     */
    public void stop() {
        BladeNode n = node;
        node = null;
        if (n != null) {
            try {
                n.detachGate();
            } catch (RuntimeException e) {
                log.log(Level.WARNING, "Blade filter: cannot detach from the Blade node: " + e, e);
            }
        }
        closeMetrics();
    }

    /** @return the node whose gate requests enter, or {@code null} while this is a pass-through */
    public BladeNode node() {
        return node;
    }

    /**
     * @param requestUri  the request's URI (path, without the query)
     * @param contextPath the webapp's context path
     * @return whether the request is for the readiness endpoint (context path + {@value #READINESS_PATH_PARAM})
     */
    public boolean isReadinessProbe(String requestUri, String contextPath) {
        String path = readinessPath;
        if (path.isEmpty() || requestUri == null || contextPath == null) {
            return false;
        }
        // contextPath + path == requestURI, without building a string
        return requestUri.length() == contextPath.length() + path.length()
            && requestUri.startsWith(contextPath) && requestUri.startsWith(path, contextPath.length());
    }

    /**
     * The readiness decision.
     *
     * @param n the node from {@link #node()}, {@code null} for a pass-through (always ready)
     * @return {@code true} to answer {@code 200 ready}, {@code false} for {@code 503 draining}
     */
    public static boolean isReady(BladeNode n) {
        return n == null || n.gate().isOpen();
    }

    /** @return {@link System#nanoTime()} when the GC-overlap measurement is on, else {@code 0}; read at entry */
    public long startNanos() {
        return timing ? System.nanoTime() : 0;
    }

    /**
     * @param n the node the request enters
     * @return the node's cumulative pause time when the GC-overlap measurement is on, else {@code 0}; read at entry
     */
    public long pauseNanos(BladeNode n) {
        return timing ? n.pauseNanos() : 0;
    }

    /**
     * Leaves the gate for an admitted request, after recording its duration and GC overlap (so that a drained gate
     * implies complete statistics). Call exactly once per admitted request, also when it failed.
     *
     * @param n            the node whose gate the request entered
     * @param startNanos   {@link #startNanos()} at entry
     * @param pauseAtEntry {@link #pauseNanos(BladeNode)} at entry
     */
    public void leave(BladeNode n, long startNanos, long pauseAtEntry) {
        try {
            if (timing) {
                gcOverlap.record(System.nanoTime() - startNanos, n.pauseNanos() - pauseAtEntry);
            }
        } finally {
            n.gate().exit();
        }
    }

    /** Counts one request answered {@code 503} because the gate was closed. */
    public void countShed() {
        shed.increment();
    }

    /** @return the GC attribution of the requests admitted through this core (the live histogram) */
    public GcOverlapHistogram gcOverlap() {
        return gcOverlap;
    }

    /** @return requests answered with 503 because the gate was closed */
    public long shedCount() {
        return shed.sum();
    }

    /** @return requests in flight through the node's gate (all webapps on the node); 0 for a pass-through */
    public long inFlight() {
        BladeNode n = node;
        return n == null ? 0 : n.gate().inFlight();
    }

    /** @return whether the gate admits new requests; always {@code true} for a pass-through */
    public boolean isGateOpen() {
        return isReady(node);
    }

    /** @return whether requests are only passed on (bad init-params, disabled, no node, not started or stopped) */
    public boolean isPassThrough() {
        return node == null;
    }

    private void bindMetrics(Object registry, String where) {
        if (registry == null) {
            return;
        }
        try {
            // Probe before touching FilterMetrics: that class links against Micrometer.
            Class<?> type = Class.forName(METER_REGISTRY_ATTRIBUTE, false, FilterCore.class.getClassLoader());
            if (!type.isInstance(registry)) {
                log.log(Level.WARNING, where + ": ignoring the meter registry " + registry.getClass().getName()
                    + ": not a " + METER_REGISTRY_ATTRIBUTE + " of this class loader; no Blade meters");
                return;
            }
            AutoCloseable bound = FilterMetrics.bind(registry, this);
            synchronized (this) {
                metrics = bound;
            }
        } catch (ClassNotFoundException | LinkageError e) {
            log.log(Level.WARNING, where + ": a meter registry was supplied but Micrometer is not on this webapp's "
                + "class path (" + e + "); no Blade meters");
        } catch (RuntimeException e) {
            log.log(Level.WARNING, where + ": cannot register the Blade meters: " + e, e);
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
                log.log(Level.WARNING, "Blade filter: cannot remove the Blade meters: " + e, e);
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
