/**
 * The one test harness of the project: {@link io.bladegc.testkit.FreePorts free ports}, and the processes the tests
 * and the benchmark harness start. It depends on no Blade module; what it launches (the agent jar, the coordinator
 * jar) it is given by path.
 */
package io.bladegc.testkit;
