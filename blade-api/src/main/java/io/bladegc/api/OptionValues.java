package io.bladegc.api;

import io.bladegc.api.BladeOptionsParser.Result;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@link BladeOptionsParser} read: each option's value, later reads overriding earlier ones, checked and parsed
 * per key, and one message per problem. Not thread-safe: one per parse.
 */
final class OptionValues {

    final List<String> errors = new ArrayList<>();
    final Map<String, Object> values = new LinkedHashMap<>();

    /**
     * Reads one option's value; a problem becomes one message.
     *
     * @param key       the option, one of {@link BladeOptionsParser#KEYS}
     * @param shownName how messages name it: the key itself, or the name the user gave it in its source (a Spring
     *                  Boot property {@code blade.drain-timeout} for {@code drainTimeout})
     * @param rawValue  the value as given; {@code null} reads as empty
     * @param from      where it came from, for messages: {@code ""} or {@code " from system property blade.margin"}
     */
    void read(String key, String shownName, String rawValue, String from) {
        String value = rawValue == null ? "" : rawValue.trim();
        String where = "'" + shownName + "=" + BladeOptionsParser.shown(key, value) + "'" + from;
        Object parsed = switch (key) {
            case "enabled", "strict" -> parseBoolean(value, where);
            case "drainTimeout", "sampleInterval", "coordinatorTimeout" ->
                parseDuration(shownName, value, where, false);
            case "margin" -> parseDuration(shownName, value, where, true);
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
            URI uri = parseCoordinator(part, where, " " + which + " '" + BladeOptionsParser.shortened(part) + "'");
            if (uri == null) {
                return null;
            }
            URI same = BladeOptions.withoutTrailingSlash(uri);
            for (int j = 0; j < uris.size(); j++) {
                if (BladeOptions.withoutTrailingSlash(uris.get(j)).equals(same)) {
                    errors.add("malformed option " + where + ": the coordinator " + which + " '"
                        + BladeOptionsParser.shortened(part)
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

    private Duration parseDuration(String shownName, String value, String where, boolean zeroAllowed) {
        Duration d = toDuration(value, where);
        if (d == null) {
            return null;
        }
        if (d.isNegative() || (!zeroAllowed && d.isZero())) {
            errors.add("invalid option " + where + ": " + shownName + " must be "
                + (zeroAllowed ? "zero or more" : "greater than zero"));
            return null;
        }
        if (d.compareTo(BladeOptionsParser.MAX_DURATION) > 0) {
            errors.add("invalid option " + where + ": " + shownName + " must be at most 1h (60m)");
            return null;
        }
        return d;
    }

    private Duration toDuration(String value, String where) {
        try {
            return DurationText.parse(value);
        } catch (IllegalArgumentException e) {
            errors.add("malformed option " + where + ": " + e.getMessage());
            return null;
        }
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
                errors.add("invalid options: " + e.getMessage() + " " + BladeOptionsParser.VALID);
                b = BladeOptions.builder();
                if (values.get("strict") instanceof Boolean strict) {
                    b.strict(strict);
                }
            }
        }
        return new Result(b.enabled(false).build(), errors);
    }
}
