/**
 * The Blade {@code -javaagent}: {@link io.bladegc.agent.BladeAgent} ({@code premain}, {@code agentmain}, the class
 * the jar's manifest names) reads the options, with {@code OptionMessages} bounding what it prints about bad ones,
 * and starts the JVM's node; with a {@code coordinator} it starts the cluster mode of
 * {@link io.bladegc.agent.coordination}, and {@link io.bladegc.agent.instrumentation} installs the class
 * instrumentation. Only {@code BladeAgent} is public.
 */
package io.bladegc.agent;
