package io.bladegc.api.slot;

/**
 * Something that happened in the ledger. Immutable.
 *
 * @param type   what
 * @param node   to whom
 * @param gcId   the GC request concerned, 0 when none
 * @param epoch  the grant concerned, 0 when none
 * @param at     when (the ledger's clock, milliseconds)
 * @param detail a short human-readable detail, may be empty
 */
public record SlotEvent(Type type, String node, long gcId, long epoch, long at, String detail) {

    /** Kinds of events. */
    public enum Type {
        JOINED, LEFT, LOST, QUEUED, GRANTED, RENEWED, RELEASED, EXPIRED, CANCELLED
    }
}
