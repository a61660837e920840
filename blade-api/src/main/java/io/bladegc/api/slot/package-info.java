/**
 * The pure slot-scheduling core: {@link io.bladegc.api.slot.SlotLedger} records who is a member, who collects and who
 * waits, with no I/O and no clock of its own, under a {@link io.bladegc.api.slot.SlotPolicy}; each call answers an
 * {@link io.bladegc.api.slot.Outcome} with its {@link io.bladegc.api.slot.SlotEvent}s, and
 * {@link io.bladegc.api.slot.LedgerState} is its snapshot ({@link io.bladegc.api.slot.DueTimes}, package-private, is
 * part of it). Used by the coordinator and by Blade for Raft's state machine. The records are immutable; the ledger
 * is not thread-safe (one caller at a time).
 */
package io.bladegc.api.slot;
