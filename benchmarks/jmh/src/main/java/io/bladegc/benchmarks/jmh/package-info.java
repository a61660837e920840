/**
 * JMH benchmark of the servlet filter's open-gate path: {@link io.bladegc.benchmarks.jmh.FilterOpenGateBenchmark}
 * measures what {@code BladeFilter} adds to a request while the gate is open. The stubs around it are
 * package-private; {@link io.bladegc.benchmarks.jmh.StubHttpServletRequest} and
 * {@link io.bladegc.benchmarks.jmh.StubHttpServletResponse} throw from every method the path should not call, so a
 * run also proves it calls none of them.
 */
package io.bladegc.benchmarks.jmh;
