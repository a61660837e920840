/**
 * What the demos and the suite report beyond their tables: {@link io.bladegc.benchmarks.report.LatencyPlot} (latency
 * percentiles per arm) and {@link io.bladegc.benchmarks.report.TimelinePlot} (latency over time with GC pauses and
 * grants), both PNG files drawn with XChart, and {@link io.bladegc.benchmarks.report.ArmComparison} (Blade's ratios to
 * the other arms and one sentence). All three are thread-safe.
 */
package io.bladegc.benchmarks.report;
