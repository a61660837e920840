package io.bladegc.servlet;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The Blade node's own counters as Micrometer meters, read from the platform MBeans that the node (started by the
 * {@code -javaagent} or by a {@link BladeFilter}) publishes. Unlike {@link BladeFilter}'s meters, which describe one
 * filter, these describe the JVM's node, whichever copy of Blade started it (the agent's relocated copy, another
 * webapp's): the MBeans carry JDK types only.
 *
 * <pre>{@code
 * BladeMeters meters = new BladeMeters();
 * meters.bindTo(registry);   // ... and on shutdown:
 * meters.close();
 * }</pre>
 *
 * <p>Every measurement reads its MBean attribute afresh. An MBean may be absent (no node yet, a single-node agent
 * has no {@code Coordination} MBean, an agent that intercepts no {@code System.gc()} has no {@code ExplicitGc} MBean)
 * and may appear or vanish later: a value that cannot be read counts as 0 for a counter and as {@code NaN} for a
 * gauge. Nothing here throws into Micrometer. A node started anew starts its counters from 0 again.
 *
 * <table>
 *   <caption>Meters (Prometheus names in parentheses)</caption>
 *   <tr><th>name</th><th>type</th><th>from</th></tr>
 *   <tr><td>{@code blade.node.requests}, {@code .collections}, {@code .forced}, {@code .forced.full},
 *       {@code .forced.follow.ups}, {@code .left.to.jvm}, {@code .escaped}, {@code .other.cause},
 *       {@code .already.collected},
 *       {@code .refused}, {@code .drain.timeouts} ({@code blade_node_requests_total} ...)</td><td>function
 *       counters</td><td>{@value #NODE}: {@code Requests}, {@code Collections}, {@code Forced}, {@code ForcedFull},
 *       {@code ForcedFollowUps}, {@code LeftToJvm}, {@code Escaped}, {@code OtherCause},
 *       {@code AlreadyCollected}, {@code Refused}, {@code DrainTimeouts}</td></tr>
 *   <tr><td>{@code blade.node.pause} ({@code blade_node_pause_seconds_total})</td><td>function counter,
 *       seconds</td><td>{@code PauseNanos}: stop-the-world pause time of the node's collections</td></tr>
 *   <tr><td>{@code blade.node.gate.open}</td><td>gauge</td><td>{@code GateOpen}: 1 open, 0 closed</td></tr>
 *   <tr><td>{@code blade.node.in.flight}</td><td>gauge</td><td>{@code InFlight}: requests inside the gate</td></tr>
 *   <tr><td>{@code blade.node.allocation.rate} ({@code blade_node_allocation_rate_bytes_per_second})</td>
 *       <td>gauge, bytes per second</td><td>{@code AllocationRate}: the heap watcher's average</td></tr>
 *   <tr><td>{@code blade.node.lead.time} ({@code blade_node_lead_time_seconds})</td><td>gauge, seconds</td>
 *       <td>{@code LeadTimeMs}: predicted time to the JVM's own next collection; {@code +Inf} while there is no
 *       prediction (the node reports {@value #NO_PREDICTION_MS} ms or more then)</td></tr>
 *   <tr><td>{@code blade.node.needed.lead} ({@code blade_node_needed_lead_seconds})</td><td>gauge, seconds</td>
 *       <td>{@code NeededLeadMs}: the lead time at which the node starts a drain</td></tr>
 *   <tr><td>{@code blade.coordination.grants}, {@code .queued.waits}, {@code .fail.opens}, {@code .cancels},
 *       {@code .overtaken}, {@code .unscheduled}, {@code .fenced}, {@code .stale.releases}, {@code .rejoins},
 *       {@code .failovers}, {@code .invitations}</td>
 *       <td>function counters</td>
 *       <td>{@value #COORDINATION}: {@code Grants}, {@code QueuedWaits}, {@code FailOpens}, {@code Cancels},
 *       {@code Overtaken}, {@code Unscheduled}, {@code Fenced}, {@code StaleReleases}, {@code Rejoins},
 *       {@code Failovers}, {@code Invitations}</td></tr>
 *   <tr><td>{@code blade.coordination.phase}, tag {@code phase} = {@code schedule}, {@code trailers}, {@code gc},
 *       {@code notify} ({@code blade_coordination_phase_seconds_count}, {@code _sum})</td><td>function timer</td>
 *       <td>{@code <Phase>Count} and {@code <Phase>MsSum}: the coordinated collections' timelines</td></tr>
 *   <tr><td>{@code blade.explicit.gc.calls}, tag {@code action} = {@code coordinated}, {@code passed},
 *       {@code ignored} ({@code blade_explicit_gc_calls_total})</td><td>function counter</td>
 *       <td>{@value #EXPLICIT_GC}: {@code Coordinated}, {@code PassedThrough}, {@code Ignored}: the application's
 *       {@code System.gc()} calls, by what the agent did with them</td></tr>
 *   <tr><td>{@code blade.servlet.entry.shed} ({@code blade_servlet_entry_shed_total})</td><td>function counter</td>
 *       <td>{@value #SERVLET_ENTRY}: {@code Shed}: requests the agent's zero-code servlet instrumentation answered
 *       503</td></tr>
 * </table>
 *
 * <p>The meters hold the platform MBean server, not this object, so they keep working when the caller drops it;
 * keep it to {@link #close()} them. Thread-safe: {@link #bindTo} and {@link #close} may be called from any thread;
 * binding to a registry it is bound to already does nothing.
 */
public final class BladeMeters implements MeterBinder, AutoCloseable {

    /** The node's MBean. */
    public static final String NODE = "io.bladegc:type=Node";

    /** The agent's coordinated mode's MBean. */
    public static final String COORDINATION = "io.bladegc:type=Coordination";

    /** The agent's MBean counting the application's explicit collection requests. */
    public static final String EXPLICIT_GC = "io.bladegc:type=ExplicitGc";

    /** The agent's MBean of the zero-code servlet instrumentation ({@code instrument=servlet}). */
    public static final String SERVLET_ENTRY = "io.bladegc:type=ServletEntry";

    /** A lead time at or above this many milliseconds means the node has no prediction. */
    static final long NO_PREDICTION_MS = 1_000_000_000_000L;

    /**
     * One MBean attribute behind a meter.
     *
     * @param meter       the meter's name after its prefix, or its tag value
     * @param attribute   the MBean attribute
     * @param description the meter's description
     */
    private record Reading(String meter, String attribute, String description) {
    }

    private static final List<Reading> NODE_COUNTERS = List.of(
        new Reading("requests", "Requests", "GC requests (upcalls) the node issued: collections it planned"),
        new Reading("collections", "Collections", "Memory-reclaiming collections the node saw"),
        new Reading("forced", "Forced", "Collections Blade forced at a quiet moment"),
        new Reading("forced.full", "ForcedFull", "Of the forced collections, the full ones"),
        new Reading("forced.follow.ups", "ForcedFollowUps",
            "Of the forced collections, young ones taken right after another in the same quiet window"),
        new Reading("left.to.jvm", "LeftToJvm",
            "Young collections left to the JVM: the lead they needed, a grant's wait included, outlasted eden"),
        new Reading("escaped", "Escaped", "Collections the JVM ran on its own while Blade meant to plan them"),
        new Reading("other.cause", "OtherCause",
            "Collections the JVM ran for a reason other than a full heap (Metaspace, a heap dump, ...)"),
        new Reading("already.collected", "AlreadyCollected", "Planned collections the JVM had run already"),
        new Reading("refused", "Refused", "Planned collections the JVM refused to run"),
        new Reading("drain.timeouts", "DrainTimeouts",
            "Drains that hit the drain timeout with requests still in flight"));

    private static final List<Reading> COORDINATION_COUNTERS = List.of(
        new Reading("grants", "Grants", "GC slots the coordinator granted"),
        new Reading("queued.waits", "QueuedWaits", "GC requests that waited in the coordinator's queue"),
        new Reading("fail.opens", "FailOpens", "GC requests handled without the coordinator (down, slow, refusing)"),
        new Reading("cancels", "Cancels", "GC requests withdrawn at the coordinator"),
        new Reading("overtaken", "Overtaken", "GC requests the JVM collected before, while they waited for a slot"),
        new Reading("unscheduled", "Unscheduled", "GC requests the coordinator left to the JVM, having stepped down"),
        new Reading("fenced", "Fenced", "Grants not used because their lease would end before the collection"),
        new Reading("stale.releases", "StaleReleases", "Releases the coordinator refused because the lease ended"),
        new Reading("rejoins", "Rejoins", "Joins after the coordinator had been down or had forgotten the node"),
        new Reading("failovers", "Failovers", "Switches to another replica of a replicated coordinator"),
        new Reading("invitations", "Invitations",
            "Young collections asked for early: they would have come due during another node's full collection"));

    private static final List<String> PHASES = List.of("Schedule", "Trailers", "Gc", "Notify");

    private static final String EXPLICIT_GC_DESCRIPTION =
        "The application's System.gc() and Runtime.gc() calls, by what the Blade agent did with them";

    private static final List<Reading> EXPLICIT_GC_ACTIONS = List.of(
        new Reading("coordinated", "Coordinated", EXPLICIT_GC_DESCRIPTION),
        new Reading("passed", "PassedThrough", EXPLICIT_GC_DESCRIPTION),
        new Reading("ignored", "Ignored", EXPLICIT_GC_DESCRIPTION));

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final Map<MeterRegistry, List<Meter>> bound = new IdentityHashMap<>();

    /** Meters that read the platform MBean server; nothing is read or registered before {@link #bindTo}. */
    public BladeMeters() {
    }

    /**
     * Registers the meters in the table above.
     *
     * @param registry where to register them
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (bound.containsKey(registry)) {
            return;
        }
        List<Meter> meters = new ArrayList<>();
        ObjectName node = name(NODE);
        for (Reading c : NODE_COUNTERS) {
            meters.add(counter("blade.node." + c.meter(), node, c.attribute(), c.description()).register(registry));
        }
        meters.add(FunctionCounter.builder("blade.node.pause", server, s -> count(s, node, "PauseNanos") / 1e9)
            .description("Stop-the-world pause time of the collections the node saw")
            .baseUnit("seconds")
            .register(registry));
        meters.add(gauge("blade.node.gate.open", node, "GateOpen",
            "1 while the node's gate admits requests, 0 while it is closed").register(registry));
        meters.add(gauge("blade.node.in.flight", node, "InFlight", "Requests in flight through the node's gate")
            .register(registry));
        meters.add(gauge("blade.node.allocation.rate", node, "AllocationRate",
            "The heap watcher's average allocation rate").baseUnit("bytes.per.second").register(registry));
        meters.add(Gauge.builder("blade.node.lead.time", server, s -> leadSeconds(value(s, node, "LeadTimeMs")))
            .description("Predicted time to the JVM's own next collection; +Inf while there is no prediction")
            .baseUnit("seconds")
            .register(registry));
        meters.add(Gauge.builder("blade.node.needed.lead", server, s -> value(s, node, "NeededLeadMs") / 1e3)
            .description("The lead time at which the node starts draining for a planned collection")
            .baseUnit("seconds")
            .register(registry));

        ObjectName coordination = name(COORDINATION);
        for (Reading c : COORDINATION_COUNTERS) {
            meters.add(counter("blade.coordination." + c.meter(), coordination, c.attribute(), c.description())
                .register(registry));
        }
        for (String phase : PHASES) {
            meters.add(FunctionTimer.builder("blade.coordination.phase", server,
                    s -> (long) count(s, coordination, phase + "Count"),
                    s -> count(s, coordination, phase + "MsSum"), TimeUnit.MILLISECONDS)
                .description("Phases of the coordinated collections: waiting for the slot (schedule), draining "
                    + "(trailers), collecting (gc), telling the coordinator (notify)")
                .tag("phase", phase.toLowerCase(Locale.ROOT))
                .register(registry));
        }

        ObjectName explicitGc = name(EXPLICIT_GC);
        for (Reading a : EXPLICIT_GC_ACTIONS) {
            meters.add(counter("blade.explicit.gc.calls", explicitGc, a.attribute(), a.description())
                .tag("action", a.meter())
                .register(registry));
        }
        meters.add(counter("blade.servlet.entry.shed", name(SERVLET_ENTRY), "Shed",
            "Requests the agent's servlet instrumentation answered 503 because the gate was closed")
            .register(registry));
        bound.put(registry, meters);
    }

    /** Removes the meters from every registry they were bound to; they may be bound again afterwards. */
    @Override
    public synchronized void close() {
        for (Map.Entry<MeterRegistry, List<Meter>> e : bound.entrySet()) {
            for (Meter m : e.getValue()) {
                e.getKey().remove(m);
            }
        }
        bound.clear();
    }

    private FunctionCounter.Builder<MBeanServer> counter(String name, ObjectName mbean, String attribute,
                                                         String description) {
        return FunctionCounter.builder(name, server, s -> count(s, mbean, attribute)).description(description);
    }

    private Gauge.Builder<MBeanServer> gauge(String name, ObjectName mbean, String attribute, String description) {
        return Gauge.builder(name, server, s -> value(s, mbean, attribute)).description(description);
    }

    /** @return the attribute as a counter value: 0 when it cannot be read */
    private static double count(MBeanServer server, ObjectName mbean, String attribute) {
        double v = value(server, mbean, attribute);
        return Double.isNaN(v) ? 0 : v;
    }

    /**
     * @return the attribute as a number ({@code true} is 1, {@code false} 0); {@code NaN} when the MBean or the
     *     attribute is absent, reading it fails, or it is no number
     */
    private static double value(MBeanServer server, ObjectName mbean, String attribute) {
        Object v;
        try {
            v = server.getAttribute(mbean, attribute);
        } catch (JMException | RuntimeException e) {
            return Double.NaN;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        return Double.NaN;
    }

    private static double leadSeconds(double ms) {
        return ms >= NO_PREDICTION_MS ? Double.POSITIVE_INFINITY : ms / 1e3;
    }

    private static ObjectName name(String name) {
        try {
            return ObjectName.getInstance(name);
        } catch (JMException e) {
            throw new IllegalStateException("not an MBean name: " + name, e);
        }
    }
}
