package io.bladegc.api;

import java.util.concurrent.atomic.LongAdder;

/**
 * What every request entry on the node's gate holds and tells, written once: the node whose gate it attached to (none
 * for a pass-through), the requests it shed, and the getters and {@link #close()} of each entry (the Netty gate, the
 * WebFlux filter, the Vert.x handler). An entry attaches with {@link Blade#attachEntry} and hands the node, or
 * {@code null}, to this constructor; it admits requests with the node's {@link Gate} and, for each it sheds, calls
 * {@link #countShed} for the retry hint its answer carries.
 *
 * <p>Thread-safe: the getters and {@link #countShed} may be called from any thread; {@link #close()} is meant to be
 * called once, when the server has shut down.
 */
public abstract class AttachedEntry implements AutoCloseable {
    private volatile BladeNode node;
    private final LongAdder shed = new LongAdder();

    /** @param node a node whose gate the entry attached to ({@link BladeNode#attachGate()}), or {@code null} */
    protected AttachedEntry(BladeNode node) {
        this.node = node;
    }

    /** @return the node requests enter, or {@code null} while this is a pass-through */
    public final BladeNode node() {
        return node;
    }

    /**
     * Counts one request shed because the gate was closed.
     *
     * @param n the node whose gate shed it
     * @return the node's retry hint for its answer, as {@link RetryAfter#nanos} bounds it
     */
    protected final long countShed(BladeNode n) {
        shed.increment();
        return RetryAfter.nanos(() -> n.retryAfter().toNanos());
    }

    /** @return requests this entry answered as shed because the gate was closed */
    public final long shedCount() {
        return shed.sum();
    }

    /** @return requests in flight through the node's gate (every entry of the node); 0 for a pass-through */
    public final long inFlight() {
        BladeNode n = node;
        return n == null ? 0 : n.gate().inFlight();
    }

    /**
     * The readiness of this node, for an application's own health route: a probe that asks it while the node drains
     * and collects learns to send elsewhere, as a shed request does.
     *
     * @return whether the gate admits new requests; always {@code true} for a pass-through
     */
    public final boolean isGateOpen() {
        BladeNode n = node;
        return n == null || n.gate().isOpen();
    }

    /** @return whether requests are only passed on (disabled, no node, bad settings, or closed) */
    public final boolean isPassThrough() {
        return node == null;
    }

    /**
     * Detaches from the node's gate; from then on new requests are passed through. Requests in flight leave the gate
     * as usual. The node itself goes on (the agent's, or {@link Blade#stopNode()} for one this JVM's Blade started).
     * Idempotent.
     */
    @Override
    public final synchronized void close() {
        BladeNode n = node;
        node = null;
        if (n != null) {
            n.detachGate();
        }
    }
}
