/**
 * The single-node demo: {@link io.bladegc.benchmarks.demo.DemoServer} (embedded Jetty 12 with a configurable live set
 * and allocation rate, optionally behind Blade's servlet filter) with {@link io.bladegc.benchmarks.demo.GcRecorder},
 * its own record of the JVM's GC notifications; {@link io.bladegc.benchmarks.demo.DemoArm} runs one arm of open-loop
 * load against it and {@link io.bladegc.benchmarks.demo.DemoTable} prints the arms side by side. Other harnesses also
 * use {@link io.bladegc.benchmarks.demo.BladeEventLines} and {@link io.bladegc.benchmarks.demo.NodeStats}.
 */
package io.bladegc.benchmarks.demo;
