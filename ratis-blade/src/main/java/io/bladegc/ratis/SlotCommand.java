package io.bladegc.ratis;

import io.bladegc.api.slot.Ask;

/**
 * One call on the replicated slot ledger, as a client sends it and the log carries it: one record per call, each with
 * the fields of that call only ({@link SlotCodec} writes them, and refuses a null node or request). Immutable.
 */
public sealed interface SlotCommand {
    /** The ledger's calls ({@code io.bladegc.api.slot.SlotLedger}), plus {@link #VIEW}, a read. */
    enum Op {
        JOIN, HEARTBEAT, LEAVE, ACQUIRE, RELEASE, RENEW, CANCEL,
        /** Only time passes: expiries, lost members, grants to the queue (a coordinator's periodic tick). */
        TICK,
        /** Read-only: the ledger as it stands; answered by a query, never written to the log. */
        VIEW
    }

    /** @return which call */
    Op op();

    /** @return the peer the call is about; empty for {@link Tick} and {@link View} */
    String node();

    /** Adds or refreshes a member. */
    record Join(String node) implements SlotCommand {
        @Override
        public Op op() {
            return Op.JOIN;
        }
    }

    /**
     * Marks a member alive.
     *
     * @param dueInMillis     how soon the peer expects its JVM to collect on its own, -1 when unknown
     * @param fullDueInMillis how soon it expects its JVM's next full collection, -1 when unknown
     */
    record Heartbeat(String node, long dueInMillis, long fullDueInMillis) implements SlotCommand {
        @Override
        public Op op() {
            return Op.HEARTBEAT;
        }
    }

    /** Removes a member; a grant it holds is given back. */
    record Leave(String node) implements SlotCommand {
        @Override
        public Op op() {
            return Op.LEAVE;
        }
    }

    /** Asks for a slot: the GC request, its kind, lead, expected hold and a full collection offered. */
    record Acquire(String node, Ask ask) implements SlotCommand {
        @Override
        public Op op() {
            return Op.ACQUIRE;
        }
    }

    /**
     * Gives a grant back after collecting.
     *
     * @param epoch       the grant's epoch
     * @param pauseMillis the measured pause
     */
    record Release(String node, long epoch, long pauseMillis) implements SlotCommand {
        @Override
        public Op op() {
            return Op.RELEASE;
        }
    }

    /** Extends the grant of {@code epoch} by a lease from now (the leader's clock). */
    record Renew(String node, long epoch) implements SlotCommand {
        @Override
        public Op op() {
            return Op.RENEW;
        }
    }

    /** Withdraws the GC request {@code gcId} and gives back a grant made for it. */
    record Cancel(String node, long gcId) implements SlotCommand {
        @Override
        public Op op() {
            return Op.CANCEL;
        }
    }

    /** Only time passes. */
    record Tick() implements SlotCommand {
        @Override
        public Op op() {
            return Op.TICK;
        }

        @Override
        public String node() {
            return "";
        }
    }

    /** Reads the ledger as it stands. */
    record View() implements SlotCommand {
        @Override
        public Op op() {
            return Op.VIEW;
        }

        @Override
        public String node() {
            return "";
        }
    }
}
