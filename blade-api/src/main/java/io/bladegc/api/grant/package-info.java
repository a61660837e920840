/**
 * The grant-holder shared by the agent's coordinated mode and Blade for Raft: {@link io.bladegc.api.grant.GrantHolder}
 * takes a node's upcall from request to release over a {@link io.bladegc.api.grant.SlotPort} (the slot ledger:
 * acquire, release, cancel), after an optional {@link io.bladegc.api.grant.Preparation} (a Raft leader's hand-off),
 * configured by {@link io.bladegc.api.grant.HolderSettings}. The public types are the ones those two modules use;
 * {@link io.bladegc.api.grant.CallWatcher}, {@link io.bladegc.api.grant.ScheduleLead},
 * {@link io.bladegc.api.grant.GcTimeline} and {@link io.bladegc.api.grant.HolderCounters} are package-private.
 */
package io.bladegc.api.grant;
