/**
 * The agent's cluster mode, as a client of the coordinator: {@link io.bladegc.agent.coordination.CoordinatedMode}
 * wires a {@code GrantHolder} over {@code CoordinatorPort} (the coordinator as the holder's {@code SlotPort}), calls
 * go through {@code CoordinatorClient} (JSON over {@code BoundedExchange}, answers and failures decoded by
 * {@code CoordinatorAnswers} into {@code CoordinatorException}s, fail-over across replicas), {@code Membership}
 * joins, heartbeats and re-joins, and {@code CoordinationCounters} with {@code CoordinationStats} show the counters
 * (MBean {@code io.bladegc:type=Coordination}). Only {@code CoordinatedMode} is public, for the premain.
 */
package io.bladegc.agent.coordination;
