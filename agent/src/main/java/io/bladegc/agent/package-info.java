/**
 * The Blade {@code -javaagent}. {@link io.bladegc.agent.BladeAgent} ({@code premain}, {@code agentmain}) reads the
 * options and starts the JVM's node; with a {@code coordinator} it starts {@link io.bladegc.agent.CoordinatedMode}
 * (a {@code GrantHolder} over {@link io.bladegc.agent.CoordinatorPort}, calls through
 * {@link io.bladegc.agent.CoordinatorClient}, heartbeats by {@link io.bladegc.agent.Membership}), and
 * {@link io.bladegc.agent.Instrumenting} installs the class instrumentation (Ratis, {@code instrument=servlet},
 * {@code explicitGc}). Only {@code BladeAgent} and the transformer {@code RatisServerInstrumentation} are public.
 */
package io.bladegc.agent;
