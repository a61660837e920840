/**
 * The node itself, behind {@code io.bladegc.api}: {@link io.bladegc.api.internal.LocalNode} wires the
 * {@link io.bladegc.api.internal.HeapWatcher} (thread {@code blade-heap-watcher}), the
 * {@link io.bladegc.api.internal.PauseModel}, {@link io.bladegc.api.internal.GcEvents},
 * {@link io.bladegc.api.internal.GcTrigger} and the gate, and with the default handler runs the single-node
 * {@link io.bladegc.api.internal.DrainSequence} on its {@code blade-gc} thread. Not part of the API: applications go
 * through {@code Blade}; the agent uses {@link io.bladegc.api.internal.StatsMBean} for its own MBeans.
 */
package io.bladegc.api.internal;
