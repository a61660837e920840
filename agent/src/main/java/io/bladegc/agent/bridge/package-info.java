/**
 * Classes the agent puts on the bootstrap class path ({@code BootstrapBridges}, which copies a fixed list of class
 * files), so that code it inlined or rewrote in any class loader reaches one copy through JDK types only:
 * {@link io.bladegc.agent.bridge.GateBridge} (the node's gate, for the servlet and Ratis advice; with it goes
 * blade-api's {@link io.bladegc.api.RetryAfter}, the retry headers' rounding the Blade filter uses too)
 * and {@link io.bladegc.agent.bridge.ExplicitGcBridge} (rewritten {@code System.gc()} and {@code Runtime.gc()}).
 * Public because that code calls them from other packages. All are thread-safe; until installed, the gate bridge
 * lets every request pass uncounted and the GC bridge collects at once.
 */
package io.bladegc.agent.bridge;
