/**
 * The JDK x collector compatibility check: {@link io.bladegc.benchmarks.compat.CompatibilityCheck} starts a Blade
 * node in its own JVM under a synthetic request load and prints, as {@code key=value} pairs, how many of the JVM's
 * collections fell inside the node's quiet windows. {@code benchmarks/compat.sh} runs it once per JDK and collector.
 */
package io.bladegc.benchmarks.compat;
