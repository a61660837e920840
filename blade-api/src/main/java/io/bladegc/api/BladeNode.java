package io.bladegc.api;

import java.time.Duration;
import java.util.function.ObjLongConsumer;

/**
 * Blade's presence in this JVM: the heap watcher, the pause model, the gate and the collector behind one face.
 * Obtain it with {@link Blade#node()} (the node the agent or another webapp started) or {@link Blade#startNode}.
 *
 * <p>Thread-safe.
 */
public interface BladeNode {

    /** @return the gate request-handling code must pass through; the same gate for every caller in this JVM */
    Gate gate();

    /**
     * Replaces the upcall handler. The default handler drains the gate and collects (single-node, GCI behaviour).
     *
     * @param handler the new handler, or {@code null} to restore the default
     */
    void register(GcHandler handler);

    /**
     * Collects for the given request. Idempotent: when any collection has happened since {@code id} was issued (the
     * JVM's own, or an earlier call for the same id), nothing is done. Blocks the caller until the collection is
     * confirmed by the JVM's GC notification. Never call it on a request thread.
     *
     * @param id the {@link GcRequest#id()} of an issued request
     * @return what happened
     * @throws IllegalArgumentException when no request with this id was issued
     */
    GcOutcome startGc(long id);

    /**
     * The single-node sequence for a handler that got permission elsewhere (a coordinator's grant): closes the
     * gate, waits for the requests in flight (at most the drain timeout; after it, collects anyway, counted),
     * collects for request {@code id} as {@link #startGc(long)} does, and opens the gate again. Blocks the caller;
     * never call it on a request thread. It logs nothing: the caller reports the returned timeline in its own line.
     *
     * @param id the latest issued {@link GcRequest#id()}
     * @return the timeline
     * @throws IllegalArgumentException when {@code id} is not the latest issued request
     */
    DrainedCollection drainAndCollect(long id);

    /**
     * {@link #drainAndCollect(long)}, collecting {@code generation} instead of the request's own generation: a full
     * collection in place of a young one the request offered ({@link GcRequest#fullInstead()}). The default
     * implementation collects the request's own generation.
     *
     * @param id         the latest issued {@link GcRequest#id()}
     * @param generation what to collect
     * @return the timeline
     * @throws IllegalArgumentException when {@code id} is not the latest issued request
     */
    default DrainedCollection drainAndCollect(long id, Generation generation) {
        return drainAndCollect(id);
    }

    /**
     * {@link #drainAndCollect(long, Generation)} under a deadline: when the drain ends after {@code collectByNanos}
     * ({@link System#nanoTime()} of this JVM), or the collection cannot be started by then (a young one is started
     * by filling eden, which a paused JVM may wake in the middle of), it opens the gate without collecting and
     * reports {@link GcOutcome#TOO_LATE}. A holder of a lease passes the last moment a collection may begin and
     * still end inside it: the lease was checked against the drain timeout before the drain, but a JVM paused during
     * the drain (SIGSTOP, a starved or suspended host) may wake past it. The default implementation ignores the deadline.
     *
     * @param id             the latest issued {@link GcRequest#id()}
     * @param generation     what to collect
     * @param collectByNanos the latest {@link System#nanoTime()} at which the collection may begin
     * @return the timeline
     * @throws IllegalArgumentException when {@code id} is not the latest issued request
     */
    default DrainedCollection drainAndCollect(long id, Generation generation, long collectByNanos) {
        return drainAndCollect(id, generation);
    }

    /**
     * Asks for a full collection planned like a predicted one (the agent routes {@code System.gc()} calls here with
     * {@code explicitGc=coordinate}): the registered handler, or the single-node drain, decides when it happens, as
     * for an upcall the heap watcher raised. Returns at once; never collects on the calling thread. While a request
     * is outstanding the call joins it.
     *
     * @return {@code true} when a collection is planned (issued now or already outstanding); {@code false} when this
     *     node cannot plan one (no gate attached and no handler registered, or a collector Blade does not schedule),
     *     and the caller should collect on its own if it must. The default implementation returns {@code false}.
     */
    default boolean requestCollection() {
        return false;
    }

    /** @return how long a shed client should wait: the expected pause plus the drain, from the pause model */
    Duration retryAfter();

    /**
     * @return the longest this node waits for the requests in flight before it collects anyway (its drain timeout,
     *     {@link BladeOptions#drainTimeout()}): a grant-holder collects under a grant only while the lease leaves room
     *     for it, the expected pause and a margin. The default implementation returns zero (a node that never waits).
     */
    default Duration drainTimeout() {
        return Duration.ZERO;
    }

    /**
     * @return {@code true} when a handler plans this node's collections together with other nodes' (a coordinator's
     *     slots, a Raft group), so that other nodes serve while this one collects: a shed client does better trying
     *     another node at once than waiting for {@link #retryAfter()}; {@code false} in single-node (GCI) mode. The
     *     default implementation returns {@code false}.
     */
    default boolean coordinated() {
        return false;
    }

    /** @return cumulative stop-the-world pause time seen in GC notifications since the node started, in nanoseconds */
    long pauseNanos();

    /**
     * Tells {@code listener} each stop-the-world pause of a memory-reclaiming collection from now on, forced or the
     * JVM's own, as its GC notification reports it: the generation and the pause in nanoseconds. It is called on the
     * JVM's notification thread and must return quickly. The default implementation tells nothing.
     *
     * @return what removes the listener
     */
    default Runnable addPauseListener(ObjLongConsumer<Generation> listener) {
        return () -> { };
    }

    /**
     * @return how many memory-reclaiming collections this JVM has run, read from the collectors' MXBeans (it changes
     *     only inside a stop-the-world pause), or -1 when unknown. A handler waiting for permission reads it to
     *     notice that the JVM collected on its own meanwhile. The default implementation returns -1.
     */
    default long collections() {
        return -1;
    }

    /**
     * Asks the node to take its next young collection now, ahead of its due time, as it would ask when that came near
     * (through its handler: drained, and under a grant when coordinated): a coordinator invites a node that would come
     * due during another node's full collection. Only when the node is armed, asks for nothing yet, and its eden is at
     * least half full (an emptier one would double its collections). The default implementation does nothing.
     *
     * @return whether the node asked
     */
    default boolean collectEarly() {
        return false;
    }

    /**
     * @return the heap watcher's latest prediction of the time left until the JVM collects on its own, in
     *     milliseconds, or -1 when it has none (no allocation measured yet). The default implementation returns -1.
     */
    default long leadTimeMillis() {
        return -1;
    }

    /**
     * @return the time the JVM is expected to go on before it collects on its own, at its average allocation rate,
     *     in milliseconds, or -1 when unknown. {@link #leadTimeMillis()} plans this node's own request for the recent
     *     peak rate, so it is shorter; this is the best single guess, which other nodes plan around (a coordinator
     *     places full collections between the nodes' expected collections). The default implementation returns -1.
     */
    default long dueInMillis() {
        return -1;
    }

    /**
     * @return the time the JVM is expected to go on before this node needs a full collection (its old generation no
     *     longer takes two young collections' promotion: the node then asks for a full one, and the JVM would soon run
     *     one on its own), at its average allocation rate and promotion per young collection, in milliseconds, or -1
     *     when unknown (right after a collection, before it measured again; after a full collection, until a young
     *     one). A coordinator keeps the nodes' full collections apart with it. The default implementation returns
     *     -1.
     */
    default long fullDueInMillis() {
        return -1;
    }

    /**
     * Tells the node that request-handling code now passes through its gate (a servlet filter started). While no
     * gate user is attached and the default handler is in place, the node only observes: it forces nothing.
     */
    void attachGate();

    /** Undoes one {@link #attachGate()}. */
    void detachGate();

    /** @return the start-up summary: collector, heap, mode, lead time */
    String summary();
}
