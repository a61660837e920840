package io.bladegc.api.grant;

import io.bladegc.api.GcRequest;

/**
 * What a node does under a grant, right before it drains and collects: a Raft leader hands its leadership off, so
 * that it collects as a follower, or chooses to collect in place where that costs its clients less. Only under a
 * grant, as BLADE does: a slot that cannot be had costs no hand-off. The HTTP flow has nothing to prepare
 * ({@link #NONE}).
 *
 * <p>Called on the holder's one thread.
 */
public interface Preparation {
    /** Nothing to prepare. */
    Preparation NONE = (request, pauses) -> Prepared.NOTHING;

    /**
     * @param request the collection about to run under the grant (the full one when the grant took the offer)
     * @param pauses  this JVM's recent pauses, as the holder measured them
     * @return what was done; {@link Prepared.Kind#FAILED} means: give the grant back, do not collect
     */
    Prepared prepare(GcRequest request, RecentPauses pauses);

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
