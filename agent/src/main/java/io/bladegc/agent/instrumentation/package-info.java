/**
 * The agent's class instrumentation (Byte Buddy, relocated): {@link io.bladegc.agent.instrumentation.Instrumenting}
 * installs what the options ask for, and always {@code RatisServerInstrumentation} (the advice of
 * {@code io.bladegc.agent.ratis}); {@code ServletInstrumentation} ({@code instrument=servlet}, the advice of
 * {@code io.bladegc.agent.servlet}; MBean {@code io.bladegc:type=ServletEntry}) and {@code ExplicitGcInterception}
 * with {@code ExplicitGcRewriter} ({@code explicitGc}; MBean {@code io.bladegc:type=ExplicitGc}) first have
 * {@code BootstrapBridges} put the classes of {@code io.bladegc.agent.bridge} on the bootstrap class path. Only
 * {@code Instrumenting} is public, for the premain.
 */
package io.bladegc.agent.instrumentation;
