package io.bladegc.api.grant;

import io.bladegc.api.slot.Ask;

import java.util.concurrent.CompletableFuture;

/**
 * The slot ledger as a {@link GrantHolder} sees it: ask for a slot, give it back, withdraw a request. Implemented by
 * the agent's coordinator client (HTTP, flow 2) and by Blade for Raft's slot group (flow 3). Membership (join,
 * heartbeat) is the implementation's own business.
 *
 * <p>Called from the holder's one thread; {@link #acquire} may complete on another.
 */
public interface SlotPort {
    /**
     * @return {@code null} when the ledger can be asked now, else why not (the coordinator is down, the slot group
     *     has no leader yet); the holder then does what {@link HolderSettings#failOpen()} says
     */
    String unavailable();

    /**
     * Asks for a slot and waits at most {@code waitMillis} for it to be granted.
     *
     * @param ask        the request: its id (asking again for the same id is idempotent, with the newest lead time),
     *                   the time left before the JVM collects on its own (the ledger serves the most urgent first),
     *                   whether the collection is a full one and how long it is expected to pause, and the pause of a
     *                   full collection this node offers to run in place of the young one
     *                   ({@link io.bladegc.api.GcRequest#fullInstead()}), or 0; a grant then says whether the ledger
     *                   took the offer ({@link SlotAnswer#full()})
     * @param waitMillis how long the ledger may hold the call before answering {@code QUEUED}
     * @return a grant (with its lease end on this JVM's {@link System#nanoTime()} clock, never later than the
     *     ledger's own end), a place in the queue, or "the ledger no longer has this request"; completes
     *     exceptionally with {@link SlotPortException} when the call failed
     */
    CompletableFuture<SlotAnswer> acquire(Ask ask, long waitMillis);

    /**
     * Called after {@link #acquire} failed: does what the failure implies (marks the ledger down, withdraws a call that
     * may still be answered, joins again when the ledger forgot this node).
     *
     * @return {@code true} when the holder should ask once more (this node joined again)
     */
    boolean recover(long gcId, SlotPortException failure);

    /**
     * Gives a grant back. A release that could not be delivered is the port's to send again later.
     *
     * @param epoch       the grant's fencing token
     * @param pauseMillis the pause the collection took
     * @return how it ended
     */
    Released release(long epoch, long pauseMillis);

    /**
     * Withdraws request {@code gcId}: out of the queue, a grant made for it given back.
     *
     * @return what came of it, for the log line
     */
    String cancel(long gcId);
}
