package io.bladegc.api;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@link BladeOptions} from agent arguments, system properties and the environment, or from one map of values
 * (servlet filter init-params). Never throws on bad input: every problem becomes one line in
 * {@link Result#errors()}, naming the option and the source it came from.
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
 *       {@code 1m}), or ISO-8601 ({@code PT0.5S}); a bare number is an error, the unit is never guessed;</li>
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

    private static final String VALID = "(valid: " + String.join(", ", KEYS) + ")";
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m)");
    private static final Pattern BARE_NUMBER = Pattern.compile("[-+]?\\d+(?:\\.\\d+)?");
    private static final String DURATION_HINT = "expected a duration such as 20ms or 1s";

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
        Reader reader = new Reader();
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
                    reader.errors.add("unknown option in environment variable '" + name + "' (valid: "
                        + String.join(", ", KEYS.stream().map(BladeOptionsParser::envName).toList()) + ")");
                } else {
                    reader.read(key, e.getValue(), from);
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
                    reader.errors.add("unknown option '" + key + "'" + from + " " + VALID);
                } else {
                    reader.read(key, e.getValue(), from);
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
                    reader.errors.add("malformed option '" + item + "': expected key=value " + VALID);
                    continue;
                }
                String key = item.substring(0, eq).trim();
                String value = item.substring(eq + 1).trim();
                if (key.isEmpty()) {
                    reader.errors.add("malformed option '" + item + "': expected key=value " + VALID);
                } else if (!KEYS.contains(key)) {
                    reader.errors.add("unknown option '" + key + "' " + VALID);
                } else if (seen.containsKey(key)) {
                    reader.errors.add("option '" + key + "' given twice: '" + key + "=" + shown(key, seen.get(key))
                        + "' and '" + key + "=" + shown(key, value) + "'");
                } else {
                    seen.put(key, value);
                    reader.read(key, value, "");
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
        Reader reader = new Reader();
        if (values != null) {
            for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
                String key = e.getKey() == null ? "" : e.getKey().trim();
                if (!KEYS.contains(key)) {
                    reader.errors.add("unknown option '" + key + "' " + VALID);
                } else {
                    reader.read(key, e.getValue(), "");
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

    /** @return the value as a message may show it: secrets hidden */
    private static String shown(String key, String value) {
        return SECRET_KEYS.contains(key) ? HIDDEN : value;
    }

    private static String keyOfEnv(String name) {
        for (String key : KEYS) {
            if (envName(key).equals(name)) {
                return key;
            }
        }
        return null;
    }

    /** Collects values, later reads overriding earlier ones, and the errors. */
    private static final class Reader {
        final List<String> errors = new ArrayList<>();
        final Map<String, Object> values = new LinkedHashMap<>();

        void read(String key, String rawValue, String from) {
            String value = rawValue == null ? "" : rawValue.trim();
            String where = "'" + key + "=" + shown(key, value) + "'" + from;
            Object parsed = switch (key) {
                case "enabled", "strict" -> parseBoolean(value, where);
                case "drainTimeout", "sampleInterval", "coordinatorTimeout" -> parseDuration(key, value, where, false);
                case "margin" -> parseDuration(key, value, where, true);
                case "coordinator" -> parseCoordinators(value, where);
                case "nodeId" -> parseNodeId(value, where);
                case "token" -> parseToken(value, where);
                case "instrument" -> parseChoice(BladeOptions.Instrument.class, value, where);
                case "explicitGc" -> parseChoice(BladeOptions.ExplicitGc.class, value, where);
                default -> throw new AssertionError("unhandled key " + key);
            };
            if (parsed != null) {
                values.put(key, parsed);
            }
        }

        private Boolean parseBoolean(String value, String where) {
            if (value.equalsIgnoreCase("true")) {
                return Boolean.TRUE;
            }
            if (value.equalsIgnoreCase("false")) {
                return Boolean.FALSE;
            }
            errors.add("malformed option " + where + ": expected true or false");
            return null;
        }

        /** @return the URLs, one or more separated by {@code |}; {@code null} after adding an error */
        private List<URI> parseCoordinators(String value, String where) {
            if (value.indexOf('|') < 0) {
                URI uri = parseCoordinator(value, where, "");
                return uri == null ? null : List.of(uri);
            }
            String[] parts = value.split("\\|", -1);
            List<URI> uris = new ArrayList<>(parts.length);
            for (int i = 0; i < parts.length; i++) {
                String part = parts[i].trim();
                String which = "URL " + (i + 1) + " of " + parts.length;
                if (part.isEmpty()) {
                    errors.add("malformed option " + where + ": the coordinator " + which + " is empty; expected "
                        + "http:// or https:// URLs separated by |, such as "
                        + "http://127.0.0.1:7070|http://127.0.0.1:7071");
                    return null;
                }
                URI uri = parseCoordinator(part, where, " " + which + " '" + part + "'");
                if (uri == null) {
                    return null;
                }
                URI same = BladeOptions.withoutTrailingSlash(uri);
                for (int j = 0; j < uris.size(); j++) {
                    if (BladeOptions.withoutTrailingSlash(uris.get(j)).equals(same)) {
                        errors.add("malformed option " + where + ": the coordinator " + which + " '" + part
                            + "' repeats URL " + (j + 1) + "; list each coordinator replica once");
                        return null;
                    }
                }
                uris.add(uri);
            }
            return uris;
        }

        /**
         * @param named how the message names the URL after "the coordinator": {@code ""} when it is the whole value,
         *              else {@code " URL 2 of 3 'ftp://h'"}
         * @return the URL; {@code null} after adding an error
         */
        private URI parseCoordinator(String value, String where, String named) {
            String hint = ": expected an http:// or https:// URL such as http://127.0.0.1:7070";
            URI uri;
            try {
                uri = new URI(value);
            } catch (URISyntaxException e) {
                errors.add("malformed option " + where + (named.isEmpty() ? "" : ": the coordinator" + named) + hint);
                return null;
            }
            if (value.isEmpty() || !uri.isAbsolute()) {
                errors.add("malformed option " + where + (named.isEmpty() ? "" : ": the coordinator" + named) + hint);
                return null;
            }
            String problem = BladeOptions.coordinatorProblem(uri);
            if (problem != null) {
                errors.add("malformed option " + where + ": the coordinator" + (named.isEmpty() ? " URL" : named) + " "
                    + problem + ", e.g. http://127.0.0.1:7070");
                return null;
            }
            return uri;
        }

        /** @return the constant named {@code value} in any case; {@code null} after adding an error */
        private <E extends Enum<E>> E parseChoice(Class<E> type, String value, String where) {
            List<String> names = new ArrayList<>();
            for (E e : type.getEnumConstants()) {
                String name = e.name().toLowerCase(Locale.ROOT);
                if (name.equalsIgnoreCase(value)) {
                    return e;
                }
                names.add(name);
            }
            errors.add("malformed option " + where + ": expected one of " + String.join(", ", names));
            return null;
        }

        private String parseNodeId(String value, String where) {
            if (!BladeOptions.validNodeId(value)) {
                errors.add("malformed option " + where + ": expected 1 to 64 characters from A-Z a-z 0-9 . _ - "
                    + "(not . or ..)");
                return null;
            }
            return value;
        }

        private String parseToken(String value, String where) {
            if (!BladeOptions.TOKEN.matcher(value).matches()) {
                errors.add("malformed option " + where + ": expected 1 to 4096 visible ASCII characters, no spaces");
                return null;
            }
            return value;
        }

        private Duration parseDuration(String key, String value, String where, boolean zeroAllowed) {
            Duration d = toDuration(value, where);
            if (d == null) {
                return null;
            }
            if (d.isNegative() || (!zeroAllowed && d.isZero())) {
                errors.add("invalid option " + where + ": " + key + " must be "
                    + (zeroAllowed ? "zero or more" : "greater than zero"));
                return null;
            }
            if (d.compareTo(MAX_DURATION) > 0) {
                errors.add("invalid option " + where + ": " + key + " must be at most 1h (60m)");
                return null;
            }
            return d;
        }

        private Duration toDuration(String value, String where) {
            if (value.isEmpty()) {
                errors.add("malformed option " + where + ": " + DURATION_HINT);
                return null;
            }
            if (BARE_NUMBER.matcher(value).matches()) {
                errors.add("malformed option " + where + ": a duration needs a unit (ms, s or m), e.g. " + value
                    + "ms or " + value + "s");
                return null;
            }
            if (value.length() > 1 && (value.charAt(0) == 'P' || value.charAt(0) == 'p'
                || value.charAt(0) == '-' && (value.charAt(1) == 'P' || value.charAt(1) == 'p'))) {
                try {
                    return Duration.parse(value);
                } catch (DateTimeParseException | ArithmeticException e) {
                    errors.add("malformed option " + where + ": not an ISO-8601 duration, " + DURATION_HINT
                        + " or PT0.5S");
                    return null;
                }
            }
            Matcher m = DURATION.matcher(value);
            if (!m.matches()) {
                errors.add("malformed option " + where + ": " + DURATION_HINT);
                return null;
            }
            long unitNanos = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> throw new AssertionError(m.group(2));
            };
            BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos));
            if (nanos.compareTo(BigDecimal.valueOf(MAX_DURATION.toNanos())) > 0) {
                return MAX_DURATION.plusNanos(1); // reported as out of range by the caller
            }
            BigInteger whole = nanos.setScale(0, RoundingMode.DOWN).toBigInteger();
            return Duration.ofNanos(whole.longValueExact());
        }

        Result result() {
            BladeOptions.Builder b = BladeOptions.builder();
            if (values.get("strict") instanceof Boolean strict) {
                b.strict(strict);
            }
            if (errors.isEmpty()) {
                if (values.get("enabled") instanceof Boolean enabled) {
                    b.enabled(enabled);
                }
                if (values.get("drainTimeout") instanceof Duration d) {
                    b.drainTimeout(d);
                }
                if (values.get("margin") instanceof Duration d) {
                    b.margin(d);
                }
                if (values.get("sampleInterval") instanceof Duration d) {
                    b.sampleInterval(d);
                }
                if (values.get("coordinator") instanceof List<?> uris) {
                    b.coordinators(uris.stream().map(URI.class::cast).toList());
                }
                if (values.get("nodeId") instanceof String id) {
                    b.nodeId(id);
                }
                if (values.get("token") instanceof String t) {
                    b.token(t);
                }
                if (values.get("coordinatorTimeout") instanceof Duration d) {
                    b.coordinatorTimeout(d);
                }
                if (values.get("instrument") instanceof BladeOptions.Instrument i) {
                    b.instrument(i);
                }
                if (values.get("explicitGc") instanceof BladeOptions.ExplicitGc e) {
                    b.explicitGc(e);
                }
                try {
                    return new Result(b.build(), errors);
                } catch (IllegalArgumentException e) {
                    // the checks above should have caught it; never throw on user input
                    errors.add("invalid options: " + e.getMessage() + " " + VALID);
                    b = BladeOptions.builder();
                    if (values.get("strict") instanceof Boolean strict) {
                        b.strict(strict);
                    }
                }
            }
            return new Result(b.enabled(false).build(), errors);
        }
    }
}
