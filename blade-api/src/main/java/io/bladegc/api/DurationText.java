package io.bladegc.api;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A duration as a person types one: the one grammar of the agent's options and of every command line of the project
 * (the coordinator's, the load generator's). A number and a unit, {@code ms}, {@code s} or {@code m} ({@code 500ms},
 * {@code 1.5s}, {@code 2 m}), or ISO-8601 ({@code PT0.5S}). A bare number is refused: the unit says whether 500 means
 * milliseconds or seconds. Ranges are the caller's to check. Stateless.
 */
public final class DurationText {
    /** What a duration looks like, for messages. */
    private static final String HINT = "a duration such as 20ms or 1s";

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m)");
    private static final Pattern BARE_NUMBER = Pattern.compile("[-+]?\\d+(?:\\.\\d+)?");
    private static final BigDecimal LONGEST_SECONDS = BigDecimal.valueOf(Long.MAX_VALUE);

    private DurationText() {
    }

    /**
     * @param text the duration as typed
     * @return the duration, whole nanoseconds (a finer fraction is cut); one too long for a {@link Duration} is
     *     {@link Long#MAX_VALUE} seconds, which every caller's range refuses
     * @throws IllegalArgumentException naming what is wrong: no unit, an unknown unit, a malformed ISO-8601 duration
     */
    public static Duration parse(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("expected " + HINT);
        }
        if (BARE_NUMBER.matcher(text).matches()) {
            String number = text.length() <= 20 ? text : "20";
            throw new IllegalArgumentException("a duration needs a unit (ms, s or m), e.g. " + number + "ms or "
                + number + "s");
        }
        if (text.length() > 1 && (text.charAt(0) == 'P' || text.charAt(0) == 'p'
            || text.charAt(0) == '-' && (text.charAt(1) == 'P' || text.charAt(1) == 'p'))) {
            try {
                return Duration.parse(text);
            } catch (DateTimeParseException | ArithmeticException e) {
                throw new IllegalArgumentException("not an ISO-8601 duration, expected " + HINT + " or PT0.5S", e);
            }
        }
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("expected " + HINT);
        }
        BigDecimal seconds = new BigDecimal(m.group(1)).multiply(switch (m.group(2)) {
            case "ms" -> new BigDecimal("0.001");
            case "s" -> BigDecimal.ONE;
            case "m" -> BigDecimal.valueOf(60);
            default -> throw new AssertionError(m.group(2));
        });
        if (seconds.compareTo(LONGEST_SECONDS) > 0) {
            return Duration.ofSeconds(Long.MAX_VALUE);
        }
        BigDecimal whole = seconds.setScale(0, RoundingMode.DOWN);
        long nanos = seconds.subtract(whole).movePointRight(9).setScale(0, RoundingMode.DOWN).longValue();
        return Duration.ofSeconds(whole.longValueExact(), nanos);
    }
}
