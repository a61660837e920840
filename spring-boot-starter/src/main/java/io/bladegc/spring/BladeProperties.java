package io.bladegc.spring;

import io.bladegc.servlet.BladeFilter;
import io.bladegc.servlet.SettingNames;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code blade.*} properties: {@link BladeFilter}'s init-params under Spring Boot's names (kebab case, so
 * {@code blade.drain-timeout}; relaxed binding also accepts {@code -Dblade.drainTimeout} and
 * {@code BLADE_DRAIN_TIMEOUT}, the agent's own names for the same options, so one setting serves both). Set
 * {@code blade.readiness-path} and {@code blade.gc-overlap}, which are the filter's alone, in the application's
 * configuration files, not as {@code -Dblade.*} flags or {@code BLADE_*} variables: under the {@code -javaagent} those
 * are the agent's options too, and it refuses names it does not know (one line, and Blade stays off).
 *
 * <p>The values are kept as text and handed to the filter unchanged, which checks them: a bad value never stops the
 * application, the filter logs one line naming it as a property ({@code blade.drain-timeout}) and the valid
 * {@code blade.*} properties, and passes every request through without shedding. A property that
 * is not set is not passed, so the filter's default applies. The Blade options ({@code drain-timeout},
 * {@code margin}, {@code sample-interval}) apply only when the filter starts the node itself; under the
 * {@code -javaagent} the agent's options apply.
 *
 * <p>Not thread-safe: Spring binds it once at start-up.
 */
@ConfigurationProperties("blade")
public class BladeProperties {

    /**
     * How the filter's log lines name its settings: as these properties ({@code blade.drain-timeout}, not the
     * init-param {@code drainTimeout}), and the valid ones listed are these.
     */
    static final SettingNames NAMES = SettingNames.of("property", "properties", propertyNames());

    /** The init-params that are Blade options rather than the servlet filter's own settings. */
    private static final Set<String> FILTER_ONLY = Set.of(BladeFilter.READINESS_PATH_PARAM,
        BladeFilter.GC_OVERLAP_PARAM);

    /**
     * Whether Blade puts the application behind its gate (default true). false leaves the auto-configuration out
     * entirely: no filter, no readiness endpoint, no meters.
     */
    private String enabled;

    /**
     * The readiness endpoint for the load balancer, relative to the context path (default /blade/ready; empty for
     * none). Answers "200 ready" while the gate is open and "503 draining" with Retry-After while it is closed.
     */
    private String readinessPath;

    /**
     * Whether to time every request and record the GC pause time that overlapped it (default false; costs two clock
     * reads per request).
     */
    private String gcOverlap;

    /**
     * Longest wait for in-flight requests before collecting anyway, e.g. 250ms or 0.5s (default 500ms). Only when the
     * filter starts the node.
     */
    private String drainTimeout;

    /**
     * Extra lead time on top of the measured delays (drain, late wake-ups) and a sample's wait, e.g. 5ms (default 2ms). Only
     * when the filter starts the node.
     */
    private String margin;

    /** How often the heap watcher reads the memory pools, e.g. 5ms (default 5ms). Only when the filter starts the node. */
    private String sampleInterval;

    /**
     * The filter's init-params for the properties that are set.
     *
     * @return init-param name to value, in a stable order
     */
    public Map<String, String> initParameters() {
        Map<String, String> params = new LinkedHashMap<>();
        put(params, "enabled", enabled);
        put(params, BladeFilter.READINESS_PATH_PARAM, readinessPath);
        put(params, BladeFilter.GC_OVERLAP_PARAM, gcOverlap);
        put(params, "drainTimeout", drainTimeout);
        put(params, "margin", margin);
        put(params, "sampleInterval", sampleInterval);
        return params;
    }

    /**
     * The Blade options that are set ({@code enabled}, {@code drainTimeout}, {@code margin},
     * {@code sampleInterval}), for an entry that is not the servlet filter (the WebFlux filter).
     *
     * @return option name to value, in a stable order
     */
    Map<String, String> nodeOptions() {
        Map<String, String> options = initParameters();
        options.keySet().removeAll(FILTER_ONLY);
        return options;
    }

    /**
     * @param option a Blade option's name, e.g. {@code drainTimeout}
     * @return its property, e.g. {@code blade.drain-timeout}; the name itself for an option this class does not set
     */
    static String propertyName(String option) {
        return propertyNames().getOrDefault(option, option);
    }

    /** @return each init-param this class sets, in {@link #initParameters()}'s order, to its property */
    private static Map<String, String> propertyNames() {
        Map<String, String> names = new LinkedHashMap<>();
        names.put("enabled", "blade.enabled");
        names.put(BladeFilter.READINESS_PATH_PARAM, "blade.readiness-path");
        names.put(BladeFilter.GC_OVERLAP_PARAM, "blade.gc-overlap");
        names.put("drainTimeout", "blade.drain-timeout");
        names.put("margin", "blade.margin");
        names.put("sampleInterval", "blade.sample-interval");
        return names;
    }

    private static void put(Map<String, String> params, String name, String value) {
        if (value != null) {
            params.put(name, value);
        }
    }

    /** @return {@code blade.enabled} as given, or {@code null} when not set */
    public String getEnabled() {
        return enabled;
    }

    /** @param enabled {@code blade.enabled} */
    public void setEnabled(String enabled) {
        this.enabled = enabled;
    }

    /** @return {@code blade.readiness-path} as given, or {@code null} when not set */
    public String getReadinessPath() {
        return readinessPath;
    }

    /** @param readinessPath {@code blade.readiness-path} */
    public void setReadinessPath(String readinessPath) {
        this.readinessPath = readinessPath;
    }

    /** @return {@code blade.gc-overlap} as given, or {@code null} when not set */
    public String getGcOverlap() {
        return gcOverlap;
    }

    /** @param gcOverlap {@code blade.gc-overlap} */
    public void setGcOverlap(String gcOverlap) {
        this.gcOverlap = gcOverlap;
    }

    /** @return {@code blade.drain-timeout} as given, or {@code null} when not set */
    public String getDrainTimeout() {
        return drainTimeout;
    }

    /** @param drainTimeout {@code blade.drain-timeout} */
    public void setDrainTimeout(String drainTimeout) {
        this.drainTimeout = drainTimeout;
    }

    /** @return {@code blade.margin} as given, or {@code null} when not set */
    public String getMargin() {
        return margin;
    }

    /** @param margin {@code blade.margin} */
    public void setMargin(String margin) {
        this.margin = margin;
    }

    /** @return {@code blade.sample-interval} as given, or {@code null} when not set */
    public String getSampleInterval() {
        return sampleInterval;
    }

    /** @param sampleInterval {@code blade.sample-interval} */
    public void setSampleInterval(String sampleInterval) {
        this.sampleInterval = sampleInterval;
    }
}
