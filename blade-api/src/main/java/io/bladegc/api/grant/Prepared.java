package io.bladegc.api.grant;

/**
 * What a {@link Preparation} did. Immutable.
 *
 * @param kind  nothing to do; handed off (a leader gave its leadership away); in place (a leader collects without
 *              handing off, because its pauses are measured to be short enough); failed (do not collect)
 * @param note  for the GC event's log line, e.g. {@code handed 7673746F72 to n2 in 40.1 ms}; empty for nothing
 * @param nanos how long it took
 */
public record Prepared(Kind kind, String note, long nanos) {
    /** What was done. */
    public enum Kind { NOTHING, HANDED_OFF, IN_PLACE, FAILED }

    /** Nothing was needed. */
    public static final Prepared NOTHING = new Prepared(Kind.NOTHING, "", 0);
}
