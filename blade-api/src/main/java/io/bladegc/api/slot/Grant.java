package io.bladegc.api.slot;

/**
 * Permission for one node to collect until {@code deadline}. Immutable.
 *
 * @param node      the holder
 * @param gcId      the holder's GC request id it was granted for
 * @param epoch     fencing token, strictly increasing over all grants of a ledger
 * @param grantedAt when it was granted (the ledger's clock, milliseconds)
 * @param deadline  when it expires unless renewed
 * @param full      whether the holder may make this collection a full one (it offered to, and the ledger expects no
 *                  other member to need a slot before the full collection ends; see {@link SlotLedger})
 */
public record Grant(String node, long gcId, long epoch, long grantedAt, long deadline, boolean full) {
    /** A grant for the collection the holder asked for, not a full one in its place. */
    public Grant(String node, long gcId, long epoch, long grantedAt, long deadline) {
        this(node, gcId, epoch, grantedAt, deadline, false);
    }
}
