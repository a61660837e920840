/**
 * The benchmark suite behind {@code benchmarks/run.sh}: {@link io.bladegc.benchmarks.suite.SuiteMain} parses
 * {@link io.bladegc.benchmarks.suite.SuiteOptions} and runs one scenario ({@code http-cluster}, {@code single-node},
 * {@code memory-pressure}, {@code raft-kv}, {@code load-sweep} or {@code collection-rate}). Scenarios compare
 * {@link io.bladegc.benchmarks.suite.Arm}s, stop their child processes by pid, also on early exit
 * ({@link io.bladegc.benchmarks.suite.StopOnExit}), and write {@code table.md};
 * {@link io.bladegc.benchmarks.suite.InterleavedSchedule} alternates the arms' order across repetitions.
 */
package io.bladegc.benchmarks.suite;
