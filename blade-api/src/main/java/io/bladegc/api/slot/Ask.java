package io.bladegc.api.slot;

/**
 * What a node asks the ledger for when it acquires a slot. Immutable.
 *
 * @param gcId            the node's GC request; ids only grow
 * @param leadMillis      the time left before the node's JVM collects on its own: the most urgent request goes first,
 *                        and one due within {@link SlotLedger#DUE_MARGIN_MILLIS} may go beyond K
 * @param full            whether the collection asked for is a full one (the node's JVM needs one): such a request is
 *                        never granted beyond K, where its long pause would keep a second node out of rotation
 * @param holdMillis      how long the node expects to hold the slot (its expected pause), 0 when it does not know:
 *                        due requests beyond K go shortest first, an unknown one as the shortest
 * @param fullOfferMillis the expected pause of a full collection the node offers to run in place of the young one it
 *                        asks for (0: none; see {@link SlotLedger}, spreading full collections)
 */
public record Ask(long gcId, long leadMillis, boolean full, long holdMillis, long fullOfferMillis) {
    /** @return a young collection of unknown length, offering no full one in its place */
    public static Ask young(long gcId, long leadMillis) {
        return new Ask(gcId, leadMillis, false, 0, 0);
    }

    /** @return this ask with the newest lead time (a waiting node asks again with what it has left) */
    Ask withLead(long newLeadMillis) {
        return new Ask(gcId, newLeadMillis, full, holdMillis, fullOfferMillis);
    }

    /** @return what is wrong with the numbers, or {@code null} when nothing is */
    String problem() {
        return gcId <= 0 || leadMillis < 0 || holdMillis < 0 || fullOfferMillis < 0
            ? "gcId must be positive, leadMillis, holdMillis and fullPauseMillis not negative" : null;
    }
}
