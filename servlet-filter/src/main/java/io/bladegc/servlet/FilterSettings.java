package io.bladegc.servlet;

import io.bladegc.api.BladeOptions;
import io.bladegc.api.BladeOptionsParser;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A Blade filter's init-params, read once by {@link FilterCore#start}: the filter's own keys plus the Blade options
 * ({@link BladeOptionsParser#KEYS}), which are used only when the filter has to start the node itself.
 *
 * @param readinessPath the readiness endpoint relative to the context path, or {@code ""} for none
 * @param gcOverlap     whether to time requests and record their GC overlap
 * @param options       the Blade options for a node started by the filter
 * @param optionsGiven  whether any Blade option was set by an init-param
 * @param errors        one message per bad init-param; empty when all are valid
 */
record FilterSettings(String readinessPath, boolean gcOverlap, BladeOptions options, boolean optionsGiven,
                      List<String> errors) {

    /** The filter's own keys, besides the Blade options. */
    static final List<String> FILTER_KEYS = List.of(FilterCore.READINESS_PATH_PARAM, FilterCore.GC_OVERLAP_PARAM);
    /**
     * Blade options only the agent acts on (coordinated mode, instrumentation): a node a filter starts is a single
     * node (GCI mode), so as init-params they are errors that say where they belong, not silently ignored.
     */
    static final List<String> AGENT_ONLY_KEYS = List.of("coordinator", "nodeId", "token", "coordinatorTimeout",
        "instrument", "explicitGc");

    FilterSettings {
        errors = List.copyOf(errors);
    }

    /** @return whether every init-param was valid */
    boolean ok() {
        return errors.isEmpty();
    }

    /**
     * Reads the init-params. Never throws on bad input.
     *
     * @param names the init-params' names ({@code null} for none)
     * @param lookup the value of an init-param, by name
     * @param shown how the messages name the init-params
     * @return the settings and the errors
     */
    static FilterSettings read(Enumeration<String> names, Function<String, String> lookup, SettingNames shown) {
        Map<String, String> bladeParams = new LinkedHashMap<>();
        List<String> errors = new ArrayList<>();
        String readinessPath = FilterCore.DEFAULT_READINESS_PATH;
        boolean gcOverlap = false;
        while (names != null && names.hasMoreElements()) {
            String name = names.nextElement();
            String value = lookup.apply(name);
            if (FilterCore.READINESS_PATH_PARAM.equals(name)) {
                String path = value == null ? "" : value.trim();
                if (!path.isEmpty() && (!path.startsWith("/") || path.contains("?") || path.contains("#"))) {
                    errors.add("invalid " + shown.kind() + " " + quoted(shown, name, value)
                        + ": expected a path starting with '/' (e.g. /blade/ready), or empty for none");
                } else {
                    readinessPath = path;
                }
            } else if (FilterCore.GC_OVERLAP_PARAM.equals(name)) {
                String flag = value == null ? "" : value.trim();
                if (flag.equalsIgnoreCase("true") || flag.equalsIgnoreCase("false")) {
                    gcOverlap = Boolean.parseBoolean(flag);
                } else {
                    errors.add("malformed " + shown.kind() + " " + quoted(shown, name, value)
                        + ": expected true or false");
                }
            } else if (AGENT_ONLY_KEYS.contains(name)) {
                errors.add(shown.kind() + " '" + shown.name(name) + "' is an agent option: give it to the agent "
                    + "(-javaagent:...=" + name + "=..., or -Dblade." + name + "); a filter's own node is a single "
                    + "node");
            } else if (!BladeOptionsParser.KEYS.contains(name.trim())) {
                errors.add("unknown " + shown.kind() + " '" + BladeOptionsParser.shortened(shown.name(name),
                    BladeOptionsParser.MAX_SHOWN) + "'");
            } else {
                bladeParams.put(name, value);
            }
        }
        BladeOptionsParser.Result parsed = BladeOptionsParser.parse(bladeParams, shown::name);
        errors.addAll(parsed.errors());
        return new FilterSettings(readinessPath, gcOverlap, parsed.options(), !bladeParams.isEmpty(), errors);
    }

    /** @return {@code 'name=value'} as a message quotes a filter key's setting, value shortened */
    private static String quoted(SettingNames shown, String name, String value) {
        return "'" + shown.name(name) + "=" + BladeOptionsParser.shortened(value == null ? "" : value,
            BladeOptionsParser.MAX_SHOWN) + "'";
    }
}
