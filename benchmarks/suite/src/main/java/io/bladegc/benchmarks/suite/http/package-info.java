/**
 * The {@code http-cluster} scenario: demo backends behind HAProxy, one arm per collector or Blade mode, then the
 * capacity search ({@link io.bladegc.benchmarks.suite.http.ClusterRateSearch}, which {@code memory-pressure} runs
 * too) and the benchmark issue's goals ({@link io.bladegc.benchmarks.suite.http.GoalsTable}).
 */
package io.bladegc.benchmarks.suite.http;
