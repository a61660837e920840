package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Outcome;

/**
 * The slot service's answer to one call. Immutable.
 *
 * @param kind     what happened
 * @param node     the node that asked
 * @param gcId     the GC request concerned (acquire, cancel), else 0
 * @param grant    the node's grant when {@code kind} is {@link Kind#GRANTED}, else {@code null}
 * @param position the node's place in the queue from 1 when {@link Kind#QUEUED}, else -1
 * @param message  why, for anything but success; may be empty
 * @param now      the coordinator's clock when the answer was made (milliseconds)
 * @param memberKey the member key the coordinator made for the node when it joined without one, else {@code ""}
 * @param invited  for a heartbeat: whether the node should take its next young collection now, since it would come
 *                 due during another member's full collection (the message says whose)
 */
public record SlotReply(Kind kind, String node, long gcId, Grant grant, int position, String message, long now,
                        String memberKey, boolean invited) {

    /** Kinds of answers; the HTTP layer maps each to a status code. */
    public enum Kind {
        /** Done; the node neither holds a grant nor waits. */
        OK,
        /** The node holds a grant. */
        GRANTED,
        /** The node waits in the queue. */
        QUEUED,
        /** The request the node waited for is gone (cancelled, or replaced by a newer one). */
        CANCELLED,
        /**
         * No slot for this collection: the coordinator has stepped down (the schedule cannot keep up, see
         * {@link Governor}) and leaves every collection to the node's JVM; the message says why.
         */
        UNSCHEDULED,
        /** The node is not a member. */
        UNKNOWN_NODE,
        /** The call does not carry the node's member key: it does not come from the process that joined as it. */
        FORBIDDEN,
        /** The epoch is not that of the node's current grant. */
        STALE_EPOCH,
        /** The ledger refused; the message says why. */
        REJECTED,
        /** The coordinator cannot take the call now (shutting down, member limit); the message says why. */
        UNAVAILABLE,
        /** This coordinator replica is not the Raft leader: ask another replica. */
        NOT_LEADER
    }

    static SlotReply of(Outcome o, String node, long gcId, long now) {
        Kind kind = switch (o.status()) {
            case OK -> Kind.OK;
            case GRANTED -> Kind.GRANTED;
            case QUEUED -> Kind.QUEUED;
            case UNKNOWN_NODE -> Kind.UNKNOWN_NODE;
            case STALE_EPOCH -> Kind.STALE_EPOCH;
            case REJECTED -> Kind.REJECTED;
        };
        Grant grant = kind == Kind.GRANTED ? o.grant() : null;
        long id = grant != null ? grant.gcId() : gcId;
        return new SlotReply(kind, node, id, grant, kind == Kind.QUEUED ? o.queuePosition() : -1, o.message(), now, "", false);
    }

    static SlotReply granted(Grant grant, long now) {
        return new SlotReply(Kind.GRANTED, grant.node(), grant.gcId(), grant, -1, "", now, "", false);
    }

    static SlotReply queued(String node, long gcId, int position, long now) {
        return new SlotReply(Kind.QUEUED, node, gcId, null, position, "", now, "", false);
    }

    static SlotReply of(Kind kind, String node, long gcId, String message, long now) {
        return new SlotReply(kind, node, gcId, null, -1, message, now, "", false);
    }

    /** @return this answer carrying {@code key}, the member key made for the node */
    SlotReply withMemberKey(String key) {
        return new SlotReply(kind, node, gcId, grant, position, message, now, key, invited);
    }

    /** @return this answer inviting the node to collect now, {@code why} as its message */
    SlotReply invited(String why) {
        return new SlotReply(kind, node, gcId, grant, position, why, now, memberKey, true);
    }

    /** @return milliseconds left on the grant, or 0 when there is none or it has run out */
    public long remainingMillis() {
        return grant == null ? 0 : Math.max(0, grant.deadline() - now);
    }
}
