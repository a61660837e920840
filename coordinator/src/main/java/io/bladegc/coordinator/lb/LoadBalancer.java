package io.bladegc.coordinator.lb;

/**
 * Takes a node out of the load balancer's rotation while it collects, and puts it back afterwards.
 *
 * <p>The coordinator calls {@link #drain} when it grants a node a GC slot, before the node closes its gate, and
 * {@link #ready} after the node released the slot. Both are idempotent: draining a drained node or readying a ready
 * one is not an error. Implementations are thread-safe; calls for the same node take effect in the order they were
 * made.
 */
public interface LoadBalancer {

    /**
     * Takes {@code node} out of rotation: the load balancer sends it no new requests, requests and connections
     * already established finish normally. Returns when the load balancer has accepted the change.
     *
     * @throws LoadBalancerException when the load balancer refused the change or could not be reached; the message
     *     names the node, the command and the load balancer's answer
     */
    void drain(String node);

    /**
     * Puts {@code node} back in rotation.
     *
     * @throws LoadBalancerException when the load balancer refused the change or could not be reached
     */
    void ready(String node);

    /** One line for the coordinator's start-up summary: which load balancer, where, and how nodes map onto it. */
    String describe();
}
