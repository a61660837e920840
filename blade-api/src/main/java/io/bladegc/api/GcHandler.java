package io.bladegc.api;

/**
 * The BLADE upcall. Called on Blade's heap-watcher thread when the predicted time to the JVM's own next collection
 * falls below the lead time Blade needs. Implementations must return quickly (hand long work to another thread)
 * and must not throw; a thrown exception is logged and treated as {@link GcDecision#COLLECT_NOW}.
 */
@FunctionalInterface
public interface GcHandler {
    /**
     * @param request what is coming
     * @return {@link GcDecision#COLLECT_NOW}, or {@link GcDecision#DEFER} to call {@link BladeNode#startGc(long)} later
     */
    GcDecision onGcRequest(GcRequest request);

    /**
     * How long this handler takes from the upcall until it lets the node drain (asking a coordinator, waiting in its
     * queue), in nanoseconds: the node raises its upcalls that much earlier, on top of its own drain and margin.
     * Called on the watcher thread at every sample, so it must be cheap, thread-safe and must not throw. Default: 0 (the
     * handler decides at once). A handler registered through another class loader's copy of Blade (the agent's) is
     * asked through the node's channel.
     */
    default long scheduleLeadNanos() {
        return 0;
    }

    /**
     * What this handler must do before it even asks, in nanoseconds (a Raft leader hands its leadership off): the node
     * raises its upcalls that much earlier as well. Unlike {@link #scheduleLeadNanos()}, this part is added even when
     * the node's lead is already held to half its eden (a node asks no earlier than that, so as not to collect a nearly
     * empty eden again and again): it is a one-off, and without it a leader's JVM collects during its hand-off. The
     * same contract as {@link #scheduleLeadNanos()}. Default: 0.
     */
    default long preparationLeadNanos() {
        return 0;
    }

    /**
     * Whether a young collection that cannot be planned (the node's lead and the recent worst wait for a grant outlast
     * eden's whole fill time) is left to the JVM, or asked for anyway, no earlier than at half eden. Leaving it costs
     * the node's own requests what the JVM's pause costs them without Blade, and spares the cluster a collection of a
     * half-empty eden. Raft peers say {@code false}: they apply the same log, so their edens fill in step, and
     * collections left to their JVMs come together and cost the group its majority. Called on the watcher thread when
     * such a collection comes near; the same contract as {@link #scheduleLeadNanos()}. Default: {@code true}.
     */
    default boolean leavesUnplannableToJvm() {
        return true;
    }
}
