/**
 * The benchmark suite behind {@code benchmarks/run.sh}, its entry point: {@link io.bladegc.benchmarks.suite.SuiteMain}
 * parses {@link io.bladegc.benchmarks.suite.SuiteOptions} and runs one scenario. Each scenario has a package of its
 * own ({@code http}: {@code http-cluster}; {@code single}: {@code single-node} and {@code collection-rate};
 * {@code memory}: {@code memory-pressure} and {@code raft-memory-pressure}; {@code raftkv}: {@code raft-kv},
 * {@code raft-kv-heavy} and {@code raft-counter}; {@code sweep}: {@code load-sweep}; {@code grpc}:
 * {@code grpc-cluster}), and what they share is in {@code harness}.
 */
package io.bladegc.benchmarks.suite;
