/**
 * HTTP load generators: {@link io.bladegc.benchmarks.load.OpenLoopLoad} (open loop, latency from each request's
 * intended send time, one event-loop thread over {@link io.bladegc.benchmarks.load.NioSender}'s keep-alive
 * connections) and {@link io.bladegc.benchmarks.load.Wrk} (closed loop with Debian's {@code wrk}). An open-loop run
 * gives a {@link io.bladegc.benchmarks.load.LoadResult}, kept in a properties file and printed with
 * {@link io.bladegc.benchmarks.load.SideBySideTable}; the counting and parsing classes are package-private.
 */
package io.bladegc.benchmarks.load;
