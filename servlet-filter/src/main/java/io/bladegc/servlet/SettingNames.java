package io.bladegc.servlet;

import io.bladegc.api.BladeOptionsParser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How a Blade filter's log lines name its settings. By default ({@link #INIT_PARAMS}) they are init-params, named
 * as {@code web.xml} names them ({@code drainTimeout}). A framework that sets the init-params from its own
 * configuration gives the filter its names instead ({@link #of}), so that a bad value is reported under the name
 * its user wrote: the Spring Boot starter's line says {@code malformed option 'blade.drain-timeout=soon'} and lists
 * the valid {@code blade.*} properties, not the init-params behind them.
 *
 * <p>The valid settings a line lists are the ones this naming names, never the agent's own options
 * ({@code coordinator}, {@code nodeId}, {@code token}, {@code coordinatorTimeout}, {@code instrument},
 * {@code explicitGc}), which a filter refuses.
 *
 * <p>Immutable and thread-safe.
 */
public final class SettingNames {

    /** Init-params under their own names: the filter's keys, then the Blade options a filter takes. */
    public static final SettingNames INIT_PARAMS = new SettingNames("init-param", "init-params", identity());

    private final String kind;
    private final String kindPlural;
    private final Map<String, String> names;
    private final String valid;

    private SettingNames(String kind, String kindPlural, Map<String, String> names) {
        this.kind = kind;
        this.kindPlural = kindPlural;
        this.names = Map.copyOf(names);
        this.valid = String.join(", ", names.values());
    }

    /**
     * A naming of the filter's settings in another configuration.
     *
     * @param kind       what one setting is called there, e.g. {@code property}
     * @param kindPlural the plural, e.g. {@code properties}
     * @param names      init-param name to the name shown, for every setting that configuration can set, in the
     *                   order a line lists them, e.g. {@code drainTimeout} to {@code blade.drain-timeout}
     * @return the naming
     * @throws IllegalArgumentException when a key is not an init-param a filter takes
     */
    public static SettingNames of(String kind, String kindPlural, Map<String, String> names) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(kindPlural, "kindPlural");
        List<String> takes = initParams();
        for (Map.Entry<String, String> e : names.entrySet()) {
            if (!takes.contains(e.getKey())) {
                throw new IllegalArgumentException("'" + e.getKey() + "' is not an init-param of a Blade filter "
                    + "(valid: " + String.join(", ", takes) + ")");
            }
            Objects.requireNonNull(e.getValue(), "name of " + e.getKey());
        }
        return new SettingNames(kind, kindPlural, new LinkedHashMap<>(names));
    }

    /** @return what one setting is called, e.g. {@code init-param} */
    String kind() {
        return kind;
    }

    /** @return what several settings are called, e.g. {@code init-params} */
    String kindPlural() {
        return kindPlural;
    }

    /**
     * @param initParam an init-param's name
     * @return the name a line shows for it; the init-param's own name when this naming has none
     */
    String name(String initParam) {
        return names.getOrDefault(initParam, initParam);
    }

    /** @return the valid settings' names, for a line: comma-separated, in order */
    String valid() {
        return valid;
    }

    /** @return every init-param a filter takes: its own keys, then the Blade options but the agent's own */
    private static List<String> initParams() {
        List<String> all = new ArrayList<>(FilterSettings.FILTER_KEYS);
        BladeOptionsParser.KEYS.stream().filter(k -> !FilterSettings.AGENT_ONLY_KEYS.contains(k)).forEach(all::add);
        return all;
    }

    private static Map<String, String> identity() {
        Map<String, String> names = new LinkedHashMap<>();
        initParams().forEach(k -> names.put(k, k));
        return names;
    }
}
