package io.bladegc.api;

import io.bladegc.api.jmx.StatsMBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;

/**
 * The JDK-level channel through which copies of Blade in different class loaders find the one node of a JVM: the
 * agent (its classes relocated), a webapp with its own {@code blade-api} jar, another webapp beside it.
 *
 * <p>The node is published as the platform MBean {@value #NAME}. Its attribute {@code Channel} is a map of JDK types
 * only (protocol {@value #VERSION}):
 * <pre>
 * version       Integer                          protocol version
 * node          Object                           the node itself (usable directly by the same class copy)
 * gateState     AtomicLong                       the gate's state word (see {@link Gate})
 * gateDrained   Runnable                         wakes the drainer when the last request leaves a closed gate
 * gateShed      LongAdder                        entries the gate refused (absent from a node of an older Blade)
 * retryAfter    LongSupplier                     nanoseconds a shed client should wait
 * drainTimeout  LongSupplier                     {@link BladeNode#drainTimeout()} in nanoseconds (absent from a node
 *                                                 of an older Blade: 0)
 * pauseNanos    LongSupplier                     cumulative pause time
 * collections   LongSupplier                     {@link BladeNode#collections()}
 * addPauseListener Function&lt;ObjLongConsumer&lt;Integer&gt;, Runnable&gt;  {@link BladeNode#addPauseListener} with the
 *                                                 generation's ordinal (absent from a node of an older Blade: none)
 * leadTimeMillis LongSupplier                    {@link BladeNode#leadTimeMillis()}
 * dueInMillis   LongSupplier                     {@link BladeNode#dueInMillis()}
 * attachGate    Runnable, detachGate Runnable
 * register      Consumer&lt;Function&lt;long[], Boolean&gt;&gt;  handler over {id, allocated, remaining, pauseNanos,
 *                                                 generation ordinal, full-instead pause nanos}; true = collect now;
 *                                                 null = default
 * registerWithLead BiConsumer&lt;Function&lt;long[], Boolean&gt;, LongSupplier&gt;  the same, with the handler's
 *                                                 {@link GcHandler#scheduleLeadNanos()}
 * registerWithLeads BiConsumer&lt;Function&lt;long[], Boolean&gt;, LongSupplier[]&gt;  the same, with the handler's
 *                                                 {scheduleLeadNanos, preparationLeadNanos[, leavesUnplannableToJvm
 *                                                 as 1 or 0]} (the third absent from an older Blade: 1)
 * startGc       LongFunction&lt;String&gt;             the {@link GcOutcome} name
 * drainAndCollect LongFunction&lt;long[]&gt;         {outcome ordinal, trailers ns, gc ns, drained 1/0}
 * drainAndCollectAs Function&lt;long[], long[]&gt;  the same over {id, generation ordinal[, collectByNanos]}
 * requestCollection BooleanSupplier            {@link BladeNode#requestCollection()}
 * coordinated   BooleanSupplier                  {@link BladeNode#coordinated()} (absent from a node of an older
 *                                                 Blade: {@code false})
 * summary       Supplier&lt;String&gt;
 * stats         Supplier&lt;Map&lt;String, Object&gt;&gt;   counters, also shown as the MBean's other attributes
 * </pre>
 * The MBean itself is a {@link StatsMBean}: the counters are its listed attributes, {@code Channel} is readable by name.
 */
final class NodeChannel {
    static final String NAME = "io.bladegc:type=Node";
    static final int VERSION = 1;

    private NodeChannel() {
    }

    /**
     * Publishes a node.
     *
     * @return {@code true} when published, {@code false} when another node was published first
     */
    static boolean publish(BladeNode node, Supplier<Map<String, Object>> stats) {
        Gate gate = node.gate();
        Map<String, Object> ch = new HashMap<>();
        ch.put("version", VERSION);
        ch.put("node", node);
        ch.put("gateState", gate.stateWord());
        ch.put("gateDrained", gate.drainedSignal());
        ch.put("gateShed", gate.shedCounter());
        ch.put("retryAfter", (LongSupplier) () -> node.retryAfter().toNanos());
        ch.put("drainTimeout", (LongSupplier) () -> node.drainTimeout().toNanos());
        ch.put("pauseNanos", (LongSupplier) node::pauseNanos);
        ch.put("collections", (LongSupplier) node::collections);
        ch.put("addPauseListener", (Function<ObjLongConsumer<Integer>, Runnable>) l ->
            node.addPauseListener((g, nanos) -> l.accept(g.ordinal(), nanos)));
        ch.put("leadTimeMillis", (LongSupplier) node::leadTimeMillis);
        ch.put("dueInMillis", (LongSupplier) node::dueInMillis);
        ch.put("attachGate", (Runnable) node::attachGate);
        ch.put("detachGate", (Runnable) node::detachGate);
        ch.put("register", (Consumer<Function<long[], Boolean>>) f ->
            node.register(f == null ? null : adapt(f, null, null, null)));
        ch.put("registerWithLead", (BiConsumer<Function<long[], Boolean>, LongSupplier>) (f, lead) ->
            node.register(f == null ? null : adapt(f, lead, null, null)));
        ch.put("registerWithLeads", (BiConsumer<Function<long[], Boolean>, LongSupplier[]>) (f, leads) ->
            node.register(f == null ? null : adapt(f, leads[0], leads[1], leads.length > 2 ? leads[2] : null)));
        ch.put("startGc", (LongFunction<String>) id -> node.startGc(id).name());
        ch.put("drainAndCollect", (LongFunction<long[]>) id -> drained(node.drainAndCollect(id)));
        ch.put("drainAndCollectAs", (Function<long[], long[]>) a ->
            drained(a.length > 2 ? node.drainAndCollect(a[0], Generation.values()[(int) a[1]], a[2])
                : node.drainAndCollect(a[0], Generation.values()[(int) a[1]])));
        ch.put("requestCollection", (BooleanSupplier) node::requestCollection);
        ch.put("coordinated", (BooleanSupplier) node::coordinated);
        ch.put("summary", (Supplier<String>) node::summary);
        ch.put("stats", stats);
        return new StatsMBean("Blade node", stats, Map.of("Channel", Map.copyOf(ch))).publish(NAME);
    }

    private static long[] drained(DrainedCollection d) {
        return new long[] {d.outcome().ordinal(), d.trailers().toNanos(), d.gc().toNanos(), d.drained() ? 1 : 0};
    }

    private static GcHandler adapt(Function<long[], Boolean> f, LongSupplier lead, LongSupplier preparation,
                                   LongSupplier leaves) {
        return new GcHandler() {
            @Override
            public GcDecision onGcRequest(GcRequest r) {
                return Boolean.TRUE.equals(f.apply(new long[] {r.id(), r.allocatedBytes(), r.remainingBytes(),
                    r.estimatedPause().toNanos(), r.generation().ordinal(), r.fullInstead().toNanos()}))
                    ? GcDecision.COLLECT_NOW
                    : GcDecision.DEFER;
            }

            @Override
            public long scheduleLeadNanos() {
                return lead == null ? 0 : lead.getAsLong();
            }

            @Override
            public long preparationLeadNanos() {
                return preparation == null ? 0 : preparation.getAsLong();
            }

            @Override
            public boolean leavesUnplannableToJvm() {
                return leaves == null || leaves.getAsLong() != 0;
            }
        };
    }

    /** Removes the published node, if any. */
    static void unpublish() {
        StatsMBean.unpublish(NAME);
    }

    /** @return the published channel, or {@code null} when no node runs in this JVM */
    @SuppressWarnings("unchecked")
    static Map<String, Object> lookup() {
        try {
            Object ch = ManagementFactory.getPlatformMBeanServer().getAttribute(StatsMBean.name(NAME), "Channel");
            return ch instanceof Map ? (Map<String, Object>) ch : null;
        } catch (InstanceNotFoundException e) {
            return null;
        } catch (JMException e) {
            throw new IllegalStateException("cannot read " + NAME, e);
        }
    }
}
