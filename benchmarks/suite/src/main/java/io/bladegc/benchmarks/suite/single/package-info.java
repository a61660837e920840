/**
 * The single-server scenarios: {@code single-node} (one DemoServer, Blade's filter off and on) and
 * {@code collection-rate} (whether Blade makes the JVM collect more often than it would on its own).
 */
package io.bladegc.benchmarks.suite.single;
