package io.bladegc.api;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Reads {@link BladeOptions} from agent arguments, system properties and the environment, or from one map of values
 * (servlet filter init-params). Never throws on bad input: every problem becomes one line in
 * {@link Result#errors()}, naming the option and the source it came from. A message shows at most
 * {@value #MAX_SHOWN} characters of any value, key or name it quotes, control characters escaped
 * ({@link #shortened}), so that every message is one short line whatever the input.
 *
 * <p>Formats:
 * <ul>
 *   <li>agent arguments: {@code key=value} pairs separated by {@code ,}, whitespace around keys and values ignored,
 *       e.g. {@code drainTimeout=250ms,margin=10ms};</li>
 *   <li>system properties: {@code blade.<key>}, e.g. {@code -Dblade.drainTimeout=250ms}; other properties are
 *       ignored, an unknown {@code blade.*} property is an error;</li>
 *   <li>environment: {@code BLADE_<KEY>} in upper snake case, e.g. {@code BLADE_DRAIN_TIMEOUT=250ms}; other
 *       variables are ignored, an unknown {@code BLADE_*} variable is an error;</li>
 *   <li>booleans: {@code true} or {@code false}, any case;</li>
 *   <li>durations: a number with the unit {@code ms}, {@code s} or {@code m} ({@code 250ms}, {@code 0.5s},
 *       {@code 1m}), or ISO-8601 ({@code PT0.5S}); a bare number is an error, the unit is never guessed (the
 *       project's one grammar, {@link DurationText}, which the coordinator's and the load tools' options share);</li>
 *   <li>{@code coordinator}: an {@code http://} or {@code https://} URL with a host, e.g.
 *       {@code http://127.0.0.1:7070}, or, for a replicated coordinator, the URLs of its replicas separated by
 *       {@code |}, e.g. {@code http://10.0.0.1:7070|http://10.0.0.2:7070|http://10.0.0.3:7070} (each checked alone;
 *       no empty one, no two alike); {@code nodeId}: 1 to 64 characters from {@code A-Z a-z 0-9 . _ -};
 *       {@code token}: 1 to 4096 visible ASCII characters, never repeated in a message;</li>
 *   <li>{@code instrument}: {@code none} or {@code servlet}; {@code explicitGc}: {@code pass}, {@code coordinate} or
 *       {@code ignore} (any case).</li>
 * </ul>
 *
 * <p>When there are errors the options are the defaults with {@code enabled=false} (Blade disables itself, the
 * application runs on), except {@code strict}, which keeps whatever value could be read so that {@code strict=true}
 * still makes the errors fatal.
 *
 * <p>Thread-safe (stateless).
 */
public final class BladeOptionsParser {

    /**
     * The valid keys, in documentation order: enabled, strict, drainTimeout, margin, sampleInterval, coordinator,
     * nodeId, token, coordinatorTimeout, instrument, explicitGc.
     */
    public static final List<String> KEYS = List.of("enabled", "strict", "drainTimeout", "margin", "sampleInterval",
        "coordinator", "nodeId", "token", "coordinatorTimeout", "instrument", "explicitGc");

    /** Keys whose values are secrets: messages show {@value #HIDDEN} instead. */
    static final List<String> SECRET_KEYS = List.of("token");

    /** What a message shows in place of a secret value. */
    static final String HIDDEN = "(hidden)";

    /** Prefix of the system properties Blade reads. */
    public static final String PROPERTY_PREFIX = "blade.";

    /** Prefix of the environment variables Blade reads. */
    public static final String ENV_PREFIX = "BLADE_";

    /** Longest accepted duration for any option: anything longer is a typo, not a setting. */
    static final Duration MAX_DURATION = Duration.ofHours(1);

    /** The most characters of a value, key or name a message shows: a longer one is cut. */
    public static final int MAX_SHOWN = 80;

    static final String VALID = "(valid: " + String.join(", ", KEYS) + ")";

    private BladeOptionsParser() {
    }

    /**
     * The outcome of parsing.
     *
     * @param options the options to run with; when there are errors, the defaults with {@code enabled=false} and
     *                {@code strict} as read
     * @param errors  one single-line message per problem, in the order found; empty when all went well
     */
    public record Result(BladeOptions options, List<String> errors) {
        public Result {
            Objects.requireNonNull(options, "options");
            errors = List.copyOf(errors);
        }

        /** @return {@code true} when there were no errors */
        public boolean ok() {
            return errors.isEmpty();
        }
    }

    /**
     * Reads the options. Precedence: agent arguments &gt; system properties {@code blade.<key>} &gt; environment
     * {@code BLADE_<KEY>} (upper snake case: drainTimeout -&gt; BLADE_DRAIN_TIMEOUT) &gt; default. Every source is
     * checked, so a malformed value is reported even where a higher source overrides it.
     *
     * @param agentArgs        the {@code -javaagent} arguments; {@code null} or blank means none
     * @param systemProperties usually {@link System#getProperties()}; {@code null} means none
     * @param environment      usually {@link System#getenv()}; {@code null} means none
     * @return the options and the errors
     */
    public static Result parse(String agentArgs, Properties systemProperties, Map<String, String> environment) {
        OptionValues reader = new OptionValues();
        // lowest precedence first: later sources overwrite earlier ones
        if (environment != null) {
            for (Map.Entry<String, String> e : new TreeMap<>(environment).entrySet()) {
                String name = e.getKey();
                if (name == null || !name.startsWith(ENV_PREFIX)) {
                    continue;
                }
                String key = keyOfEnv(name);
                String from = " from environment variable " + name;
                if (key == null) {
                    reader.errors.add("unknown option in environment variable '" + shortened(name) + "' (valid: "
                        + String.join(", ", KEYS.stream().map(BladeOptionsParser::envName).toList()) + ")");
                } else {
                    reader.read(key, key, e.getValue(), from);
                }
            }
        }
        if (systemProperties != null) {
            Map<String, String> props = new TreeMap<>();
            for (String name : systemProperties.stringPropertyNames()) {
                if (name.startsWith(PROPERTY_PREFIX)) {
                    props.put(name, systemProperties.getProperty(name));
                }
            }
            for (Map.Entry<String, String> e : props.entrySet()) {
                String key = e.getKey().substring(PROPERTY_PREFIX.length());
                String from = " from system property " + e.getKey();
                if (!KEYS.contains(key)) {
                    reader.errors.add("unknown option '" + shortened(key) + "' from system property "
                        + shortened(e.getKey()) + " " + VALID);
                } else {
                    reader.read(key, key, e.getValue(), from);
                }
            }
        }
        if (agentArgs != null) {
            Map<String, String> seen = new LinkedHashMap<>();
            for (String part : agentArgs.split(",", -1)) {
                String item = part.trim();
                if (item.isEmpty()) {
                    continue; // tolerate "a=b,,c=d" and a trailing comma
                }
                int eq = item.indexOf('=');
                if (eq < 0) {
                    reader.errors.add("malformed option '" + shortened(item) + "': expected key=value " + VALID);
                    continue;
                }
                String key = item.substring(0, eq).trim();
                String value = item.substring(eq + 1).trim();
                if (key.isEmpty()) {
                    reader.errors.add("malformed option '" + shortened(item) + "': expected key=value " + VALID);
                } else if (!KEYS.contains(key)) {
                    reader.errors.add("unknown option '" + shortened(key) + "' " + VALID);
                } else if (seen.containsKey(key)) {
                    reader.errors.add("option '" + key + "' given twice: '" + key + "=" + shown(key, seen.get(key))
                        + "' and '" + key + "=" + shown(key, value) + "'");
                } else {
                    seen.put(key, value);
                    reader.read(key, key, value, "");
                }
            }
        }
        return reader.result();
    }

    /**
     * Reads the options from one map, e.g. servlet filter init-parameters. Keys are the option names
     * ({@link #KEYS}); unknown keys are errors.
     *
     * @param values option name to value; {@code null} means none
     * @return the options and the errors
     */
    public static Result parse(Map<String, String> values) {
        return parse(values, Function.identity());
    }

    /**
     * Reads the options from one map like {@link #parse(Map)}, its messages naming each option as the user wrote
     * it: a framework that sets the options from its own configuration (the Spring Boot starter's
     * {@code blade.drain-timeout} for {@code drainTimeout}) gives its names, so that a message says
     * {@code malformed option 'blade.drain-timeout=soon'}. Unknown keys are errors named as given.
     *
     * @param values    option name ({@link #KEYS}) to value; {@code null} means none
     * @param shownName the name a message gives an option, by key
     * @return the options and the errors
     */
    public static Result parse(Map<String, String> values, Function<String, String> shownName) {
        OptionValues reader = new OptionValues();
        if (values != null) {
            for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
                String key = e.getKey() == null ? "" : e.getKey().trim();
                if (!KEYS.contains(key)) {
                    reader.errors.add("unknown option '" + shortened(key) + "' " + VALID);
                } else {
                    reader.read(key, shortened(shownName.apply(key)), e.getValue(), "");
                }
            }
        }
        return reader.result();
    }

    /** @return the environment variable for a key: drainTimeout -&gt; BLADE_DRAIN_TIMEOUT */
    public static String envName(String key) {
        StringBuilder sb = new StringBuilder(ENV_PREFIX);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isUpperCase(c)) {
                sb.append('_');
            }
            sb.append(Character.toUpperCase(c));
        }
        return sb.toString();
    }

    /** @return the value as a message may show it: secrets hidden, others {@link #shortened} */
    static String shown(String key, String value) {
        return SECRET_KEYS.contains(key) ? HIDDEN : shortened(value);
    }

    /** @return {@code text} as a message may quote it: {@link #shortened(String, int)} to {@value #MAX_SHOWN} */
    static String shortened(String text) {
        return shortened(text, MAX_SHOWN);
    }

    /**
     * For messages that show what a user gave (the agent's lines about options use it too).
     *
     * @param text    anything
     * @param maxShow the most characters shown
     * @return {@code text} as a message may show it, whatever it holds: control characters escaped (a newline as
     *     {@code \n}, a tab as {@code \t}, others as {@code \}{@code uXXXX}), and cut after {@code maxShow}
     *     characters, with its length said: {@code ...(100000 chars)}
     */
    public static String shortened(String text, int maxShow) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        for (; i < text.length() && sb.length() < maxShow; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : c);
            }
        }
        return i < text.length() ? sb.append("...(").append(text.length()).append(" chars)").toString() : sb.toString();
    }

    private static String keyOfEnv(String name) {
        for (String key : KEYS) {
            if (envName(key).equals(name)) {
                return key;
            }
        }
        return null;
    }
}
