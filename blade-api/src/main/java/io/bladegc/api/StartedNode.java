package io.bladegc.api;

import java.util.Map;

/**
 * A node as {@link Blade#startNode} holds one it started itself: the node, the counters it publishes, and a way to
 * stop it. The implementation is {@code LocalNode} in {@code io.bladegc.api.internal}, a package that builds on this
 * one; {@link Blade} finds it by name and deals with it through this interface, so this package does not depend on
 * it. Applications get nodes as {@link BladeNode} and need not use this type.
 *
 * <p>Thread-safe.
 */
public interface StartedNode extends BladeNode {
    /** @return counters and state, JDK types only, read afresh: the node MBean's attributes */
    Map<String, Object> stats();

    /** Stops the node's threads and listeners and opens its gate. */
    void stop();
}
