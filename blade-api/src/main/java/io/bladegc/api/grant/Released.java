package io.bladegc.api.grant;

/**
 * How a {@link SlotPort#release} ended. Immutable.
 *
 * @param kind accepted; refused as stale (the lease had ended at the ledger: never retried); or not delivered (the
 *             port sends it again when the ledger answers)
 * @param note the end of the GC event's log line, e.g. {@code released}
 */
public record Released(Kind kind, String note) {
    /** How it ended. */
    public enum Kind { RELEASED, STALE, NOT_DELIVERED }

    /** @return an accepted release */
    public static Released released() {
        return new Released(Kind.RELEASED, "released");
    }
}
