package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeOptions;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The node's meters, read from MBeans this test registers under Blade's names (and once from a real node). */
class BladeMetersTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final List<String> NAMES = List.of(BladeMeters.NODE, BladeMeters.COORDINATION,
        BladeMeters.EXPLICIT_GC, BladeMeters.SERVLET_ENTRY);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BladeMeters meters = new BladeMeters();

    @BeforeEach
    void noBladeMBeans() throws Exception {
        for (String name : NAMES) {
            assertThat(SERVER.isRegistered(new ObjectName(name))).as(name + " before the test").isFalse();
        }
    }

    @AfterEach
    void unregister() throws Exception {
        meters.close();
        Blade.stopNode();
        for (String name : NAMES) {
            if (SERVER.isRegistered(new ObjectName(name))) {
                SERVER.unregisterMBean(new ObjectName(name));
            }
        }
    }

    @Test
    void nodeCountersAndGaugesAreReadAtEachMeasurement() throws Exception {
        Map<String, Object> node = register(BladeMeters.NODE, Map.ofEntries(
            Map.entry("Requests", 5L), Map.entry("Collections", 7L), Map.entry("Forced", 4L), Map.entry("ForcedFull", 9L),
            Map.entry("ForcedFollowUps", 11L), Map.entry("LeftToJvm", 13L),
            Map.entry("Escaped", 2L), Map.entry("OtherCause", 8L), Map.entry("AlreadyCollected", 1L), Map.entry("Refused", 3L),
            Map.entry("DrainTimeouts", 6L), Map.entry("PauseNanos", 1_500_000_000L), Map.entry("GateOpen", true),
            Map.entry("InFlight", 12L), Map.entry("AllocationRate", 300_000_000L), Map.entry("LeadTimeMs", 250L),
            Map.entry("NeededLeadMs", 40L), Map.entry("Collector", "Parallel")));
        meters.bindTo(registry);

        assertThat(counter("blade.node.requests")).isEqualTo(5);
        assertThat(counter("blade.node.collections")).isEqualTo(7);
        assertThat(counter("blade.node.forced")).isEqualTo(4);
        assertThat(counter("blade.node.forced.full")).isEqualTo(9);
        assertThat(counter("blade.node.forced.follow.ups")).isEqualTo(11);
        assertThat(counter("blade.node.left.to.jvm")).isEqualTo(13);
        assertThat(counter("blade.node.escaped")).isEqualTo(2);
        assertThat(counter("blade.node.other.cause")).isEqualTo(8);
        assertThat(counter("blade.node.already.collected")).isEqualTo(1);
        assertThat(counter("blade.node.refused")).isEqualTo(3);
        assertThat(counter("blade.node.drain.timeouts")).isEqualTo(6);
        assertThat(counter("blade.node.pause")).isEqualTo(1.5);
        assertThat(registry.get("blade.node.pause").functionCounter().getId().getBaseUnit()).isEqualTo("seconds");
        assertThat(gauge("blade.node.gate.open")).isEqualTo(1);
        assertThat(gauge("blade.node.in.flight")).isEqualTo(12);
        assertThat(gauge("blade.node.allocation.rate")).isEqualTo(300_000_000);
        assertThat(gauge("blade.node.lead.time")).isEqualTo(0.25);
        assertThat(gauge("blade.node.needed.lead")).isEqualTo(0.04);

        node.put("Requests", 6L);
        node.put("GateOpen", false);
        node.put("InFlight", 0);
        node.put("LeadTimeMs", Long.MAX_VALUE / 2 / 1_000_000); // what the node reports without a prediction
        assertThat(counter("blade.node.requests")).isEqualTo(6);
        assertThat(gauge("blade.node.gate.open")).isZero();
        assertThat(gauge("blade.node.in.flight")).isZero();
        assertThat(gauge("blade.node.lead.time")).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void coordinationCountersAndPhases() throws Exception {
        register(BladeMeters.COORDINATION, Map.ofEntries(
            Map.entry("Grants", 9L), Map.entry("QueuedWaits", 3L), Map.entry("FailOpens", 2L),
            Map.entry("Cancels", 1L), Map.entry("Overtaken", 8L), Map.entry("Unscheduled", 11L), Map.entry("Fenced", 4L),
            Map.entry("StaleReleases", 5L),
            Map.entry("Rejoins", 6L), Map.entry("Failovers", 7L), Map.entry("Invitations", 12L),
            Map.entry("ScheduleMsSum", 30.5), Map.entry("ScheduleCount", 9L),
            Map.entry("TrailersMsSum", 12.0), Map.entry("TrailersCount", 8L),
            Map.entry("GcMsSum", 80.0), Map.entry("GcCount", 9L),
            Map.entry("NotifyMsSum", 0.0), Map.entry("NotifyCount", 0L)));
        meters.bindTo(registry);

        assertThat(counter("blade.coordination.grants")).isEqualTo(9);
        assertThat(counter("blade.coordination.queued.waits")).isEqualTo(3);
        assertThat(counter("blade.coordination.fail.opens")).isEqualTo(2);
        assertThat(counter("blade.coordination.cancels")).isEqualTo(1);
        assertThat(counter("blade.coordination.overtaken")).isEqualTo(8);
        assertThat(counter("blade.coordination.unscheduled")).isEqualTo(11);
        assertThat(counter("blade.coordination.fenced")).isEqualTo(4);
        assertThat(counter("blade.coordination.stale.releases")).isEqualTo(5);
        assertThat(counter("blade.coordination.rejoins")).isEqualTo(6);
        assertThat(counter("blade.coordination.failovers")).isEqualTo(7);
        assertThat(counter("blade.coordination.invitations")).isEqualTo(12);
        assertThat(phase("schedule").count()).isEqualTo(9);
        assertThat(phase("schedule").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(30.5);
        assertThat(phase("trailers").count()).isEqualTo(8);
        assertThat(phase("trailers").totalTime(TimeUnit.SECONDS)).isEqualTo(0.012);
        assertThat(phase("gc").totalTime(TimeUnit.MILLISECONDS)).isEqualTo(80);
        assertThat(phase("notify").count()).isZero();
        assertThat(counter("blade.node.requests")).as("no node MBean").isZero();
    }

    @Test
    void explicitGcCallsByAction() throws Exception {
        register(BladeMeters.EXPLICIT_GC, Map.of("Coordinated", 3L, "PassedThrough", 2L, "Ignored", 1L));
        meters.bindTo(registry);

        assertThat(registry.get("blade.explicit.gc.calls").tag("action", "coordinated").functionCounter().count())
            .isEqualTo(3);
        assertThat(registry.get("blade.explicit.gc.calls").tag("action", "passed").functionCounter().count())
            .isEqualTo(2);
        assertThat(registry.get("blade.explicit.gc.calls").tag("action", "ignored").functionCounter().count())
            .isEqualTo(1);
    }

    @Test
    void requestsTheZeroCodeInstrumentationShed() throws Exception {
        register(BladeMeters.SERVLET_ENTRY, Map.of("Shed", 7L));
        meters.bindTo(registry);

        assertThat(counter("blade.servlet.entry.shed")).isEqualTo(7);
    }

    @Test
    void absentMBeansReadAsZeroOrNaNAndAreFoundWhenTheyAppear() throws Exception {
        meters.bindTo(registry);

        assertThat(registry.getMeters()).as("exactly the documented meters").hasSize(11 + 1 + 5 + 11 + 4 + 3 + 1);
        for (Meter m : registry.getMeters()) {
            for (var measurement : m.measure()) {
                if (m.getId().getType() == Meter.Type.GAUGE) {
                    assertThat(measurement.getValue()).as(m.getId().getName()).isNaN();
                } else {
                    assertThat(measurement.getValue()).as(m.getId().toString()).isZero();
                }
            }
        }

        register(BladeMeters.NODE, Map.of("Collections", 3L, "GateOpen", true));
        assertThat(counter("blade.node.collections")).isEqualTo(3);
        assertThat(gauge("blade.node.gate.open")).isEqualTo(1);
        assertThat(gauge("blade.node.in.flight")).as("attribute absent").isNaN();

        SERVER.unregisterMBean(new ObjectName(BladeMeters.NODE));
        assertThat(counter("blade.node.collections")).isZero();
        assertThat(gauge("blade.node.gate.open")).isNaN();
    }

    @Test
    void unreadableOrNonNumericAttributesReadAsZeroOrNaN() throws Exception {
        SERVER.registerMBean(new Attributes(Map.of()) {
            @Override
            public Object getAttribute(String attribute) {
                throw new IllegalStateException("broken");
            }
        }, new ObjectName(BladeMeters.NODE));
        register(BladeMeters.COORDINATION, Map.of("Grants", "nine", "GcCount", "one"));
        meters.bindTo(registry);

        assertThat(counter("blade.node.collections")).isZero();
        assertThat(gauge("blade.node.gate.open")).isNaN();
        assertThat(counter("blade.coordination.grants")).isZero();
        assertThat(phase("gc").count()).isZero();
    }

    @Test
    void realNodeIsRead() {
        Blade.startNode(BladeOptions.defaults());
        meters.bindTo(registry);

        assertThat(gauge("blade.node.gate.open")).isEqualTo(1);
        assertThat(gauge("blade.node.in.flight")).isZero();
        assertThat(gauge("blade.node.needed.lead")).isPositive();
        assertThat(gauge("blade.node.allocation.rate")).isNotNaN();
        assertThat(counter("blade.node.collections")).isNotNegative();

        Blade.stopNode();
        assertThat(gauge("blade.node.gate.open")).as("node gone").isNaN();
    }

    @Test
    void closeRemovesTheMetersFromEveryRegistryAndBindingTwiceRegistersOnce() {
        SimpleMeterRegistry other = new SimpleMeterRegistry();
        meters.bindTo(registry);
        int count = registry.getMeters().size();
        meters.bindTo(registry);
        meters.bindTo(other);
        assertThat(registry.getMeters()).hasSize(count);
        assertThat(other.getMeters()).hasSize(count);

        meters.close();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(other.getMeters()).isEmpty();

        meters.bindTo(registry);
        assertThat(registry.getMeters()).as("bound again after close").hasSize(count);
    }

    @Test
    void prometheusNames() throws Exception {
        register(BladeMeters.NODE, Map.of("PauseNanos", 2_000_000_000L, "LeadTimeMs", 1500L));
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        meters.bindTo(prometheus);

        String scrape = prometheus.scrape();
        for (String name : List.of("blade_node_requests_total", "blade_node_collections_total",
            "blade_node_forced_total", "blade_node_escaped_total", "blade_node_already_collected_total",
            "blade_node_refused_total", "blade_node_drain_timeouts_total", "blade_node_gate_open",
            "blade_node_in_flight", "blade_node_allocation_rate_bytes_per_second",
            "blade_node_needed_lead_seconds", "blade_coordination_grants_total",
            "blade_coordination_queued_waits_total", "blade_coordination_fail_opens_total",
            "blade_coordination_cancels_total", "blade_coordination_fenced_total",
            "blade_coordination_stale_releases_total", "blade_coordination_rejoins_total",
            "blade_coordination_failovers_total")) {
            assertThat(scrape).as(name).containsPattern("(?m)^" + name + " ");
        }
        assertThat(scrape).containsPattern("(?m)^blade_node_pause_seconds_total 2\\.0$");
        assertThat(scrape).containsPattern("(?m)^blade_node_lead_time_seconds 1\\.5$");
        for (String phase : List.of("schedule", "trailers", "gc", "notify")) {
            assertThat(scrape).containsPattern("(?m)^blade_coordination_phase_seconds_count\\{phase=\"" + phase + "\"\\} ");
            assertThat(scrape).containsPattern("(?m)^blade_coordination_phase_seconds_sum\\{phase=\"" + phase + "\"\\} ");
        }
        for (String action : List.of("coordinated", "passed", "ignored")) {
            assertThat(scrape).containsPattern("(?m)^blade_explicit_gc_calls_total\\{action=\"" + action + "\"\\} ");
        }
        assertThat(scrape).containsPattern("(?m)^blade_servlet_entry_shed_total ");
    }

    private double counter(String name) {
        return registry.get(name).functionCounter().count();
    }

    private double gauge(String name) {
        return registry.get(name).gauge().value();
    }

    private FunctionTimer phase(String phase) {
        return registry.get("blade.coordination.phase").tag("phase", phase).functionTimer();
    }

    /** Registers a live view of a map as the MBean of that name. */
    private static Map<String, Object> register(String name, Map<String, Object> values) throws Exception {
        Map<String, Object> live = new ConcurrentHashMap<>(values);
        SERVER.registerMBean(new Attributes(live), new ObjectName(name));
        return live;
    }

    /** A read-only MBean whose attributes are a map's entries, like Blade's own. */
    private static class Attributes implements DynamicMBean {
        private final Map<String, Object> values;

        Attributes(Map<String, Object> values) {
            this.values = values;
        }

        @Override
        public Object getAttribute(String attribute) throws AttributeNotFoundException {
            Object v = values.get(attribute);
            if (v == null) {
                throw new AttributeNotFoundException(attribute);
            }
            return v;
        }

        @Override
        public void setAttribute(Attribute attribute) {
            throw new UnsupportedOperationException("read-only");
        }

        @Override
        public AttributeList getAttributes(String[] attributes) {
            AttributeList list = new AttributeList();
            for (String a : attributes) {
                if (values.containsKey(a)) {
                    list.add(new Attribute(a, values.get(a)));
                }
            }
            return list;
        }

        @Override
        public AttributeList setAttributes(AttributeList attributes) {
            return new AttributeList();
        }

        @Override
        public Object invoke(String actionName, Object[] params, String[] signature) {
            throw new UnsupportedOperationException("no operations");
        }

        @Override
        public MBeanInfo getMBeanInfo() {
            return new MBeanInfo(Attributes.class.getName(), "test MBean", null, null, null, null);
        }
    }
}
