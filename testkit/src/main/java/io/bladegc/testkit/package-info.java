/**
 * The one test harness of the project, for every module's tests and for the benchmark harness:
 * {@link io.bladegc.testkit.FreePorts free ports}; a {@link io.bladegc.testkit.ChildProcess child process} stopped by
 * its own pid, and built on it a {@link io.bladegc.testkit.ChildJvm child JVM} (usually with the agent), the
 * {@link io.bladegc.testkit.CoordinatorProcess coordinator jar}, {@link io.bladegc.testkit.HaproxyProcess HAProxy}
 * and {@link io.bladegc.testkit.NginxProcess nginx}; a {@link io.bladegc.testkit.LocalRaftGroup Ratis group} in this
 * JVM; a {@link io.bladegc.testkit.GateDrill load on an HTTP server} whose gate is closed and opened meanwhile. It
 * depends on no Blade module: what it launches (the agent jar, the coordinator jar) it is given by path.
 */
package io.bladegc.testkit;
