package io.bladegc.api;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

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
 * retryAfter    LongSupplier                     nanoseconds a shed client should wait
 * pauseNanos    LongSupplier                     cumulative pause time
 * attachGate    Runnable, detachGate Runnable
 * register      Consumer&lt;Function&lt;long[], Boolean&gt;&gt;  handler over {id, allocated, remaining, pauseNanos,
 *                                                 generation ordinal}; true = collect now; null = default
 * startGc       LongFunction&lt;String&gt;             the {@link GcOutcome} name
 * drainAndCollect LongFunction&lt;long[]&gt;         {outcome ordinal, trailers ns, gc ns, drained 1/0}
 * summary       Supplier&lt;String&gt;
 * stats         Supplier&lt;Map&lt;String, Object&gt;&gt;   counters, also shown as the MBean's other attributes
 * </pre>
 */
final class NodeChannel implements DynamicMBean {
    static final String NAME = "io.bladegc:type=Node";
    static final int VERSION = 1;

    private final Map<String, Object> channel;
    private final Supplier<Map<String, Object>> stats;

    private NodeChannel(Map<String, Object> channel, Supplier<Map<String, Object>> stats) {
        this.channel = Map.copyOf(channel);
        this.stats = stats;
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
        ch.put("retryAfter", (LongSupplier) () -> node.retryAfter().toNanos());
        ch.put("pauseNanos", (LongSupplier) node::pauseNanos);
        ch.put("attachGate", (Runnable) node::attachGate);
        ch.put("detachGate", (Runnable) node::detachGate);
        ch.put("register", (Consumer<Function<long[], Boolean>>) f -> node.register(f == null ? null : adapt(f)));
        ch.put("startGc", (LongFunction<String>) id -> node.startGc(id).name());
        ch.put("drainAndCollect", (LongFunction<long[]>) id -> {
            DrainedCollection d = node.drainAndCollect(id);
            return new long[] {d.outcome().ordinal(), d.trailers().toNanos(), d.gc().toNanos(), d.drained() ? 1 : 0};
        });
        ch.put("summary", (Supplier<String>) node::summary);
        ch.put("stats", stats);
        try {
            server().registerMBean(new NodeChannel(ch, stats), name());
            return true;
        } catch (InstanceAlreadyExistsException e) {
            return false;
        } catch (JMException e) {
            throw new IllegalStateException("cannot publish the Blade node as " + NAME, e);
        }
    }

    private static GcHandler adapt(Function<long[], Boolean> f) {
        return r -> Boolean.TRUE.equals(f.apply(new long[] {r.id(), r.allocatedBytes(), r.remainingBytes(),
            r.estimatedPause().toNanos(), r.generation().ordinal()})) ? GcDecision.COLLECT_NOW : GcDecision.DEFER;
    }

    /** Removes the published node, if any. */
    static void unpublish() {
        try {
            server().unregisterMBean(name());
        } catch (InstanceNotFoundException e) {
            // already gone
        } catch (JMException e) {
            throw new IllegalStateException("cannot unpublish " + NAME, e);
        }
    }

    /** @return the published channel, or {@code null} when no node runs in this JVM */
    @SuppressWarnings("unchecked")
    static Map<String, Object> lookup() {
        try {
            Object ch = server().getAttribute(name(), "Channel");
            return ch instanceof Map ? (Map<String, Object>) ch : null;
        } catch (InstanceNotFoundException e) {
            return null;
        } catch (JMException e) {
            throw new IllegalStateException("cannot read " + NAME, e);
        }
    }

    private static MBeanServer server() {
        return ManagementFactory.getPlatformMBeanServer();
    }

    private static ObjectName name() {
        try {
            return new ObjectName(NAME);
        } catch (JMException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public Object getAttribute(String attribute) {
        if ("Channel".equals(attribute)) {
            return channel;
        }
        return stats.get().get(attribute);
    }

    @Override
    public void setAttribute(Attribute attribute) {
        throw new UnsupportedOperationException("the Blade node MBean is read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList list = new AttributeList();
        for (String a : attributes) {
            list.add(new Attribute(a, getAttribute(a)));
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException("the Blade node MBean has no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        Map<String, Object> now = stats.get();
        MBeanAttributeInfo[] attrs = new MBeanAttributeInfo[now.size()];
        int i = 0;
        for (Map.Entry<String, Object> e : now.entrySet()) {
            attrs[i++] = new MBeanAttributeInfo(e.getKey(), e.getValue().getClass().getName(), e.getKey(), true,
                false, false);
        }
        return new MBeanInfo(NodeChannel.class.getName(), "Blade node", attrs, null, null, null);
    }
}
