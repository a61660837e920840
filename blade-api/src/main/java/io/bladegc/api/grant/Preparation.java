package io.bladegc.api.grant;

import io.bladegc.api.GcRequest;

/**
 * What a node does before it asks for a slot, and checks again right before it collects under one: a Raft leader
 * hands its leadership off, so that it collects as a follower. The HTTP flow has nothing to prepare ({@link #NONE}).
 *
 * <p>Called on the holder's one thread.
 */
public interface Preparation {
    /** Nothing to prepare, nothing to object to. */
    Preparation NONE = new Preparation() {
        @Override
        public Prepared prepare(GcRequest request, RecentPauses pauses) {
            return Prepared.NOTHING;
        }

        @Override
        public String objection(Prepared prepared) {
            return null;
        }
    };

    /**
     * @param request the collection coming
     * @param pauses  this JVM's recent pauses, as the holder measured them
     * @return what was done; {@link Prepared.Kind#FAILED} means: do not ask, do not collect
     */
    Prepared prepare(GcRequest request, RecentPauses pauses);

    /**
     * @param prepared what {@link #prepare} returned for this collection
     * @return why the node must not collect now after all (e.g. it was elected leader again meanwhile), or
     *     {@code null}
     */
    String objection(Prepared prepared);
}
