/**
 * The coordinator's slot service: the {@link io.bladegc.api.slot.SlotLedger} with its clock and tick, run one call at
 * a time by a {@link io.bladegc.coordinator.slots.SlotExecutor}; the long-polls of nodes waiting for a slot
 * ({@link io.bladegc.coordinator.slots.LongPolls}); the recent events; the metrics; and the calls into the
 * {@link io.bladegc.coordinator.lb.LoadBalancer} that take a node out of rotation while it collects
 * ({@link io.bladegc.coordinator.slots.Rotation}).
 *
 * <p>Threads: ledger calls run on whichever thread calls {@link io.bladegc.coordinator.slots.SlotService} (a Netty
 * I/O thread) when no other call runs, else right after the running ones on the thread running them
 * ({@link io.bladegc.coordinator.slots.SerialSlotExecutor}); {@code blade-coordinator-slots} waits for the tick and the
 * long-poll timeouts and submits them the same way; {@code blade-coordinator-lb} makes the load-balancer calls, which
 * may block on I/O, in the order they were made.
 */
package io.bladegc.coordinator.slots;
