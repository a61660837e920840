/**
 * What the suite's scenarios share: the arms they compare ({@link io.bladegc.benchmarks.suite.harness.Arm}), the
 * backends' JVM flags and workloads, the interleaved order of repetitions, stopping child processes by pid also on
 * early exit ({@link io.bladegc.benchmarks.suite.harness.StopOnExit}), rate searches, open-loop schedules and latency
 * logs, CPU, memory and wake-up readings, bootstrap intervals and pause overlaps of measured windows, and the parts of
 * {@code table.md} every scenario writes. It names no scenario.
 */
package io.bladegc.benchmarks.suite.harness;
