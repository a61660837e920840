/**
 * Byte Buddy advice that {@code io.bladegc.agent.instrumentation.RatisServerInstrumentation} inlines into Ratis'
 * {@code RaftServerImpl}: {@link io.bladegc.agent.ratis.StepDownReadAdvice} answers a linearizable read pending at
 * step-down with {@code NotLeaderException}, and {@link io.bladegc.agent.ratis.ClientRequestAdvice} passes a
 * non-leader's client requests through the JVM's gate. The code runs inside Ratis' class, so it names only Ratis',
 * the JDK's and the bootstrap bridge's types.
 */
package io.bladegc.agent.ratis;
