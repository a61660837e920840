package io.bladegc.api.slot;

/**
 * Permission for one node to collect until {@code deadline}. Immutable.
 *
 * @param node      the holder
 * @param gcId      the holder's GC request id it was granted for
 * @param epoch     fencing token, strictly increasing over all grants of a ledger
 * @param grantedAt when it was granted (the ledger's clock, milliseconds)
 * @param deadline  when it expires unless renewed
 */
public record Grant(String node, long gcId, long epoch, long grantedAt, long deadline) {
}
