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
        public Prepared confirm(Prepared prepared) {
            return Prepared.NOTHING;
        }
    };

    /**
     * @param request the collection coming
     * @param pauses  this JVM's recent pauses, as the holder measured them
     * @return what was done; {@link Prepared.Kind#FAILED} means: do not ask, do not collect
     */
    Prepared prepare(GcRequest request, RecentPauses pauses);

    /**
     * Called under a grant, right before the node drains and collects: makes the preparation true again if it no
     * longer is. A Raft peer elected leader again while it waited hands off again, within the grant, rather than give
     * the grant back (the JVM would then collect on its own, unscheduled, perhaps while the next holder collects).
     *
     * @param prepared what {@link #prepare} returned for this collection
     * @return {@link Prepared#NOTHING} when nothing had to be done; what was done again
     *     ({@link Prepared.Kind#HANDED_OFF}); or {@link Prepared.Kind#FAILED} with why the node must not collect
     *     under this grant
     */
    Prepared confirm(Prepared prepared);

    /**
     * @param pauses this JVM's recent pauses, as the holder measured them
     * @return how long {@link #prepare} would take if called now, nanoseconds, which the node adds to its lead time:
     *     a Raft leader's recent hand-offs, 0 for a follower. Default 0. Called on the node's watcher thread at every
     *     sample: cheap, and safe beside the holder's thread.
     */
    default long leadNanos(RecentPauses pauses) {
        return 0;
    }
}
