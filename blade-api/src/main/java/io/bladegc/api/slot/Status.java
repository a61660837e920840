package io.bladegc.api.slot;

/** The answer of one ledger operation. */
public enum Status {
    /** Done. */
    OK,
    /** The caller holds a grant (see {@link Outcome#grant()}). */
    GRANTED,
    /** The caller waits in the queue (see {@link Outcome#queuePosition()}). */
    QUEUED,
    /** The node is not a member: join first. */
    UNKNOWN_NODE,
    /** The epoch is not that of the node's current grant: a late message about an old grant. */
    STALE_EPOCH,
    /** Not allowed now; the message says why. */
    REJECTED
}
