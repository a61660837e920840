/**
 * Which garbage collector this JVM runs: {@link io.bladegc.api.collector.CollectorKind} recognises HotSpot's
 * collectors by the exact names of their {@code GarbageCollectorMXBean}s and knows the roles of their beans and memory
 * pools (which bean collects the young generation, which notifications are pauses, which collectors Blade can
 * schedule). The node reads the heap through it; tools that read the node's MBean ({@code GcBeans}) use it to tell
 * collections from other pauses. Depends on the JDK only; immutable, so thread-safe.
 */
package io.bladegc.api.collector;
