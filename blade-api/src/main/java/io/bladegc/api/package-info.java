/**
 * The Blade API: {@link io.bladegc.api.Blade} finds the JVM's one {@link io.bladegc.api.BladeNode} or starts it; a
 * {@link io.bladegc.api.GcHandler} receives the upcall ({@link io.bladegc.api.GcRequest}, answered with a
 * {@link io.bladegc.api.GcDecision}); {@link io.bladegc.api.Gate} admits and counts requests;
 * {@link io.bladegc.api.BladeOptions} and {@link io.bladegc.api.BladeOptionsParser} hold and read the settings.
 * {@link io.bladegc.api.StartedNode} is what {@code Blade} needs of a node it starts itself (the implementation, in
 * {@code io.bladegc.api.internal}, is found by name: this package depends on no other Blade package but
 * {@code io.bladegc.api.jmx}). {@link io.bladegc.api.ChannelNode}, {@link io.bladegc.api.NodeChannel} (the MBean
 * through which copies of Blade in other class loaders share one node) and {@link io.bladegc.api.OptionValues} are
 * package-private.
 */
package io.bladegc.api;
