/**
 * Blade for Raft on Apache Ratis: an application's peers keep a GC-slot ledger in a second Raft group
 * ({@link io.bladegc.ratis.SlotStateMachine}, called through {@link io.bladegc.ratis.SlotClient}) and, with the agent
 * attached, collect only under its grants ({@link io.bladegc.ratis.QuorumPolicy}). Entry points:
 * {@link io.bladegc.ratis.RaftBlade} ({@code registry}, {@code start}) with {@link io.bladegc.ratis.RaftBladeOptions},
 * and {@link io.bladegc.ratis.RaftBladeClients} for the application's clients. Package-private: the leader's hand-off
 * ({@link io.bladegc.ratis.RaftHandOff}), {@link io.bladegc.ratis.Arming}, {@link io.bladegc.ratis.SlotGroupPort}.
 */
package io.bladegc.ratis;
