/**
 * JMH benchmark of the servlet filter's open-gate path: {@link io.bladegc.benchmarks.jmh.FilterOpenGateBenchmark}
 * measures what {@code BladeFilter} adds to a request while the gate is open, around Spring's servlet mocks
 * ({@code spring-test}).
 */
package io.bladegc.benchmarks.jmh;
