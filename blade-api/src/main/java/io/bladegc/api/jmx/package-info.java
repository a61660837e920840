/**
 * How Blade shows its counters over JMX: {@link io.bladegc.api.jmx.StatsMBean}, a read-only platform MBean whose
 * attributes are JDK-typed values read afresh on every access. The node publishes itself as one
 * ({@code io.bladegc:type=Node}, whose unlisted {@code Channel} attribute lets copies of Blade in other class loaders
 * share it), and the agent publishes its own ({@code io.bladegc:type=Coordination}, {@code ServletEntry},
 * {@code ExplicitGc}). Depends on the JDK only.
 */
package io.bladegc.api.jmx;
