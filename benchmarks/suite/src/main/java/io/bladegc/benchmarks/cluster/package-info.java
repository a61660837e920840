/**
 * The demo cluster as child processes: {@link io.bladegc.benchmarks.cluster.Cluster} starts HAProxy, the coordinator
 * and the demo backends ({@link io.bladegc.benchmarks.cluster.Haproxy},
 * {@link io.bladegc.testkit.CoordinatorProcess}, {@link io.bladegc.benchmarks.cluster.DemoServerProcess}) as
 * a {@link io.bladegc.benchmarks.cluster.ClusterSpec} says, each a {@link io.bladegc.testkit.ChildProcess}
 * stopped by its own pid; {@link io.bladegc.benchmarks.cluster.ClusterArm} runs one arm under open-loop load;
 * {@link io.bladegc.benchmarks.cluster.ClusterDemo} is the README demo's {@code main}.
 */
package io.bladegc.benchmarks.cluster;
