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
}
