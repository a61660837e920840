/**
 * The {@code memory-pressure} and {@code raft-memory-pressure} scenarios: as the heap shrinks toward the live set,
 * the highest request rate that keeps the client's p99 under a target, on the demo cluster and on the Raft store,
 * and their table.
 */
package io.bladegc.benchmarks.suite.memory;
