package io.bladegc.api.slot;

/**
 * Permission for one node to collect until {@code deadline}. Immutable.
 *
 * @param node      the holder
 * @param gcId      the holder's GC request id it was granted for
 * @param epoch     fencing token, strictly increasing over all grants of a ledger
 * @param grantedAt when it was granted (the ledger's clock, milliseconds)
 * @param deadline  when it expires unless renewed
 * @param full      whether this collection is a full one: the holder asked for one ({@link Ask#full()}), or offered
 *                  to run one in place of its young collection and the ledger expects no other member to need a slot
 *                  before it ends ({@link Ask#fullOfferMillis()}; see {@link SlotLedger})
 */
public record Grant(String node, long gcId, long epoch, long grantedAt, long deadline, boolean full) {
    /** A grant for the collection the holder asked for, not a full one in its place. */
    public Grant(String node, long gcId, long epoch, long grantedAt, long deadline) {
        this(node, gcId, epoch, grantedAt, deadline, false);
    }
}
