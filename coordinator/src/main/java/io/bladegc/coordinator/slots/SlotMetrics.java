package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The coordinator's meters, all under {@code blade.coordinator.}, and their Prometheus exposition. Thread-safe.
 *
 * <ul>
 *   <li>{@code blade.coordinator.grants}, {@code .releases}, {@code .expiries}, {@code .cancels}, {@code .lost}:
 *       counters of ledger events;</li>
 *   <li>{@code blade.coordinator.pause}: the pauses nodes reported on release (milliseconds);</li>
 *   <li>{@code blade.coordinator.members}, {@code .collecting}, {@code .queue}, {@code .waiting}: gauges, refreshed on
 *       every tick;</li>
 *   <li>{@code blade.coordinator.slot.demand}: the slots the members' collections need ({@link SlotDemand}), and
 *       {@code blade.coordinator.slot.infeasible}: 1 while that exceeds the slots, else 0, and
 *       {@code blade.coordinator.slot.observing}: 1 while the coordinator has stepped down and leaves every
 *       collection to the JVMs ({@link Governor}), else 0; refreshed on every tick;</li>
 *   <li>{@code blade.coordinator.requests}: HTTP requests by {@code route} and {@code status};</li>
 *   <li>{@code blade.coordinator.lb.errors}: failed load-balancer calls by {@code op} (drain, ready).</li>
 * </ul>
 */
public final class SlotMetrics {
    /** HTTP status codes below this have their request counters cached. */
    private static final int MAX_STATUS = 600;

    private final PrometheusMeterRegistry registry;
    private final Counter grants;
    private final Counter releases;
    private final Counter expiries;
    private final Counter cancels;
    private final Counter lost;
    private final DistributionSummary pause;
    private final AtomicInteger members = new AtomicInteger();
    private final AtomicInteger collecting = new AtomicInteger();
    private final AtomicInteger queue = new AtomicInteger();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicLong demandMicros = new AtomicLong();
    private final AtomicInteger infeasible = new AtomicInteger();
    private final AtomicInteger observing = new AtomicInteger();
    /** Request counters by route, then by status code: a registry lookup builds tags and an id every time. */
    private final ConcurrentHashMap<String, AtomicReferenceArray<Counter>> requests = new ConcurrentHashMap<>();

    /** Metrics on a fresh Prometheus registry. */
    public SlotMetrics() {
        this(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    /** @param registry where the meters go; {@link #scrape()} reads it */
    public SlotMetrics(PrometheusMeterRegistry registry) {
        this.registry = registry;
        grants = counter("blade.coordinator.grants", "GC slots granted");
        releases = counter("blade.coordinator.releases", "GC slots released by their holder");
        expiries = counter("blade.coordinator.expiries", "GC slots lost at the lease deadline");
        cancels = counter("blade.coordinator.cancels", "GC requests cancelled, queued or granted");
        lost = counter("blade.coordinator.lost", "members dropped after the member timeout");
        pause = DistributionSummary.builder("blade.coordinator.pause").baseUnit("milliseconds")
            .description("GC pauses reported by nodes on release").register(registry);
        gauge("blade.coordinator.members", members, "live members");
        gauge("blade.coordinator.collecting", collecting, "grants outstanding");
        gauge("blade.coordinator.queue", queue, "GC requests waiting for a slot");
        gauge("blade.coordinator.waiting", waiting, "acquire long-polls open");
        Gauge.builder("blade.coordinator.slot.demand", demandMicros, d -> d.get() / 1e6)
            .description("slots the members' collections need").register(registry);
        gauge("blade.coordinator.slot.infeasible", infeasible, "1 while the slot demand exceeds the slots");
        gauge("blade.coordinator.slot.observing", observing, "1 while the coordinator has stepped down and leaves every"
            + " collection to the JVMs");
    }

    /** @return the registry, for callers that add their own meters */
    public MeterRegistry registry() {
        return registry;
    }

    /** @return the Prometheus text exposition of every meter */
    public String scrape() {
        return registry.scrape();
    }

    /** Counts one HTTP request. {@code route} and {@code status} come from small fixed sets. */
    public void request(String route, int status) {
        if (status < 0 || status >= MAX_STATUS) {
            requestCounter(route, status).increment();
            return;
        }
        AtomicReferenceArray<Counter> byStatus =
            requests.computeIfAbsent(route, r -> new AtomicReferenceArray<>(MAX_STATUS));
        Counter c = byStatus.get(status);
        if (c == null) {
            c = requestCounter(route, status); // the registry hands every racer the same counter
            byStatus.set(status, c);
        }
        c.increment();
    }

    private Counter requestCounter(String route, int status) {
        return registry.counter("blade.coordinator.requests", "route", route, "status", Integer.toString(status));
    }

    void event(SlotEvent e) {
        switch (e.type()) {
            case GRANTED -> grants.increment();
            case RELEASED -> releases.increment();
            case EXPIRED -> expiries.increment();
            case CANCELLED -> cancels.increment();
            case LOST -> lost.increment();
            default -> {
            }
        }
    }

    void pause(long millis) {
        pause.record(millis);
    }

    void lbError(String op) {
        registry.counter("blade.coordinator.lb.errors", "op", op).increment();
    }

    void gauges(int members, int collecting, int queue, int waiting, double slotDemand, boolean infeasible,
                boolean observing) {
        this.members.set(members);
        this.collecting.set(collecting);
        this.queue.set(queue);
        this.waiting.set(waiting);
        this.demandMicros.set(Math.round(slotDemand * 1e6));
        this.infeasible.set(infeasible ? 1 : 0);
        this.observing.set(observing ? 1 : 0);
    }

    private Counter counter(String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    private void gauge(String name, AtomicInteger value, String description) {
        Gauge.builder(name, value, AtomicInteger::get).description(description).register(registry);
    }
}
