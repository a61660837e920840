/**
 * The {@code load-sweep} scenario: Blade from moderate load to past saturation beside G1 alone, closed-loop and
 * open-loop windows interleaved across one cluster per arm, and its table.
 */
package io.bladegc.benchmarks.suite.sweep;
