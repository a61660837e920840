/**
 * A hand-run benchmark of the coordinator, not a test: {@link io.bladegc.benchmarks.coordinator.CoordinatorBench}
 * starts {@code blade-coordinator.jar} in a separate JVM
 * ({@link io.bladegc.benchmarks.coordinator.BenchedCoordinator}) and measures latency, throughput and memory per node
 * ({@link io.bladegc.benchmarks.coordinator.LatencyRun}, {@link io.bladegc.benchmarks.coordinator.ThroughputRun},
 * {@link io.bladegc.benchmarks.coordinator.MemoryRun}) over keep-alive connections
 * ({@link io.bladegc.benchmarks.coordinator.NodeConnection}). Only {@code CoordinatorBench} is public.
 */
package io.bladegc.benchmarks.coordinator;
