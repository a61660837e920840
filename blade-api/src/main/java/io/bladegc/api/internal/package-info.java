/**
 * The node itself, behind {@code io.bladegc.api}: {@link io.bladegc.api.internal.LocalNode} wires the
 * {@code HeapWatcher} (thread {@code blade-heap-watcher}), the {@code PauseModel}, {@code GcEvents}, the
 * {@code GcTrigger} and the gate, and with the default handler runs the single-node {@code DrainSequence} on its
 * {@code blade-gc} thread. Not part of the API: applications go through {@code Blade}, which starts a
 * {@code LocalNode} by name (as a {@code StartedNode}), so that this package depends on {@code io.bladegc.api} and not
 * the other way round. Everything but {@code LocalNode} is package-private.
 */
package io.bladegc.api.internal;
