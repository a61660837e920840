package io.bladegc.ratis;

import io.bladegc.api.slot.Ask;
import java.util.Objects;

/**
 * One call on the replicated slot ledger, as a client sends it and the log carries it. Immutable.
 *
 * @param op          which call
 * @param node        the peer the call is about; empty for {@link Op#TICK} and {@link Op#VIEW}
 * @param gcId        the GC request ({@link Op#ACQUIRE}, {@link Op#CANCEL}), else 0
 * @param leadMillis  how soon the peer needs to collect ({@link Op#ACQUIRE}), or expects its JVM to collect
 *                    ({@link Op#HEARTBEAT}; -1 when unknown), else 0
 * @param epoch       the grant's epoch ({@link Op#RELEASE}, {@link Op#RENEW}), else 0
 * @param pauseMillis the measured pause ({@link Op#RELEASE}), the pause of a full collection offered in place of the
 *                    young one ({@link Op#ACQUIRE}; 0 for none), when the peer expects its JVM's next full collection
 *                    ({@link Op#HEARTBEAT}; -1 when unknown), else 0
 * @param full        whether the collection asked for is a full one ({@link Op#ACQUIRE}), else {@code false}
 * @param holdMillis  how long the peer expects to hold the slot, 0 when unknown ({@link Op#ACQUIRE}), else 0
 */
public record SlotCommand(Op op, String node, long gcId, long leadMillis, long epoch, long pauseMillis, boolean full,
                          long holdMillis) {

    /** The ledger's calls ({@code io.bladegc.api.slot.SlotLedger}), plus {@link #VIEW}, a read. */
    public enum Op {
        JOIN, HEARTBEAT, LEAVE, ACQUIRE, RELEASE, RENEW, CANCEL,
        /** Only time passes: expiries, lost members, grants to the queue (a coordinator's periodic tick). */
        TICK,
        /** Read-only: the ledger as it stands; answered by a query, never written to the log. */
        VIEW
    }

    public SlotCommand {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(node, "node");
    }

    static SlotCommand join(String node) {
        return new SlotCommand(Op.JOIN, node, 0, 0, 0, 0, false, 0);
    }

    static SlotCommand heartbeat(String node, long dueInMillis, long fullDueInMillis) {
        return new SlotCommand(Op.HEARTBEAT, node, 0, dueInMillis, 0, fullDueInMillis, false, 0);
    }

    static SlotCommand leave(String node) {
        return new SlotCommand(Op.LEAVE, node, 0, 0, 0, 0, false, 0);
    }

    static SlotCommand acquire(String node, Ask ask) {
        return new SlotCommand(Op.ACQUIRE, node, ask.gcId(), ask.leadMillis(), 0, ask.fullOfferMillis(), ask.full(),
            ask.holdMillis());
    }

    /** @return what an {@link Op#ACQUIRE} asks for */
    Ask ask() {
        return new Ask(gcId, leadMillis, full, holdMillis, pauseMillis);
    }

    static SlotCommand release(String node, long epoch, long pauseMillis) {
        return new SlotCommand(Op.RELEASE, node, 0, 0, epoch, pauseMillis, false, 0);
    }

    static SlotCommand renew(String node, long epoch) {
        return new SlotCommand(Op.RENEW, node, 0, 0, epoch, 0, false, 0);
    }

    static SlotCommand cancel(String node, long gcId) {
        return new SlotCommand(Op.CANCEL, node, gcId, 0, 0, 0, false, 0);
    }

    static SlotCommand tick() {
        return new SlotCommand(Op.TICK, "", 0, 0, 0, 0, false, 0);
    }

    static SlotCommand view() {
        return new SlotCommand(Op.VIEW, "", 0, 0, 0, 0, false, 0);
    }
}
