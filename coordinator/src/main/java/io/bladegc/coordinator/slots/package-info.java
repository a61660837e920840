/**
 * The coordinator's slot service: the one thread that owns the {@link io.bladegc.api.slot.SlotLedger}, its clock and
 * tick, the long-polls of nodes waiting for a slot, the recent events, the metrics, and the calls into the
 * {@link io.bladegc.coordinator.lb.LoadBalancer} that take a node out of rotation while it collects.
 *
 * <p>Threads: {@code blade-coordinator-slots} (the ledger; every public method of {@link
 * io.bladegc.coordinator.slots.SlotService} hands its work to it and answers with a future) and
 * {@code blade-coordinator-lb} (load-balancer calls, which may block on I/O, in the order they were made).
 */
package io.bladegc.coordinator.slots;
