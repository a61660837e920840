/**
 * The Blade coordinator: a Netty sidecar that grants GC slots across a cluster over HTTP/1.1 + JSON and takes each
 * collecting node out of the load balancer's rotation.
 *
 * <p>{@link io.bladegc.coordinator.CoordinatorMain} (command line, {@code java -jar blade-coordinator.jar}) builds a
 * {@link io.bladegc.coordinator.CoordinatorConfig}, a {@link io.bladegc.coordinator.slots.SlotService} and a
 * {@link io.bladegc.coordinator.CoordinatorServer} (bootstrap, graceful shutdown), whose
 * {@link io.bladegc.coordinator.CoordinatorServerInitializer} sets up each connection's pipeline (limits, timeouts)
 * in front of the {@link io.bladegc.coordinator.CoordinatorHandler} (routes a request to the slot service and writes
 * the JSON answer). The protocol is documented in {@code coordinator/API.md}.
 */
package io.bladegc.coordinator;
