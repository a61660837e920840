package io.bladegc.servlet;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Blade filter's Micrometer meters, observing its {@link FilterCore} (so the Jakarta and the javax filter register
 * the same meters). The only class of this module that links against Micrometer; the core calls it only after
 * checking that Micrometer is present and the registry is a {@link MeterRegistry}.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>meaning</th></tr>
 *   <tr><td>{@code blade.gate.shed}</td><td>function counter</td>
 *       <td>requests answered 503 because the gate was closed</td></tr>
 *   <tr><td>{@code blade.gate.inflight}</td><td>gauge</td>
 *       <td>requests in flight through the node's gate</td></tr>
 *   <tr><td>{@code blade.gate.open}</td><td>gauge</td><td>1 while the gate admits requests, 0 while closed</td></tr>
 *   <tr><td>{@code blade.request.gc.overlap}</td><td>timer</td>
 *       <td>GC pause time that overlapped a request, one sample per request that overlapped any pause (requests
 *       without overlap are not recorded, so the request thread touches Micrometer only after a pause)</td></tr>
 *   <tr><td>{@code blade.request.gc.share}</td><td>gauge, tag {@code slower.than} = 10ms, 100ms, 1s</td>
 *       <td>of the requests at least about that slow, the share that overlapped a GC pause (see
 *       {@link GcOverlapSnapshot} for the resolution)</td></tr>
 * </table>
 *
 * <p>Gauges hold the core weakly (Micrometer's default; the filter holds it strongly); {@link #close()} removes every
 * meter, which the filter does in {@code destroy}. Not thread-safe itself; the core binds and closes it once.
 */
final class FilterMetrics implements AutoCloseable {
    private static final List<Duration> SHARE_THRESHOLDS =
        List.of(Duration.ofMillis(10), Duration.ofMillis(100), Duration.ofSeconds(1));

    private final MeterRegistry registry;
    private final FilterCore core;
    private final List<Meter> meters = new ArrayList<>();

    private FilterMetrics(MeterRegistry registry, FilterCore core) {
        this.registry = registry;
        this.core = core;
    }

    /**
     * Registers the meters.
     *
     * @param registry a {@link MeterRegistry} (typed {@code Object} so that callers need no Micrometer types)
     * @param core     the filter core to observe
     * @return a handle that removes the meters
     */
    static AutoCloseable bind(Object registry, FilterCore core) {
        FilterMetrics m = new FilterMetrics((MeterRegistry) registry, core);
        m.register();
        return m;
    }

    private void register() {
        meters.add(FunctionCounter.builder("blade.gate.shed", core, FilterCore::shedCount)
            .description("Requests answered 503 because the Blade gate was closed")
            .baseUnit("requests")
            .register(registry));
        meters.add(Gauge.builder("blade.gate.inflight", core, FilterCore::inFlight)
            .description("Requests in flight through the Blade gate")
            .baseUnit("requests")
            .register(registry));
        meters.add(Gauge.builder("blade.gate.open", core, c -> c.isGateOpen() ? 1 : 0)
            .description("1 while the Blade gate admits new requests, 0 while it is closed")
            .register(registry));
        Timer overlap = Timer.builder("blade.request.gc.overlap")
            .description("GC pause time that overlapped a request; only requests that overlapped a pause")
            .register(registry);
        meters.add(overlap);
        core.gcOverlap().overlapSink(nanos -> overlap.record(nanos, TimeUnit.NANOSECONDS));
        for (Duration threshold : SHARE_THRESHOLDS) {
            meters.add(Gauge.builder("blade.request.gc.share", core,
                    c -> c.gcOverlap().snapshot().gcOverlapShare(threshold))
                .description("Of the requests slower than the threshold, the share that overlapped a GC pause")
                .tag("slower.than", label(threshold))
                .register(registry));
        }
    }

    private static String label(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    @Override
    public void close() {
        core.gcOverlap().overlapSink(null);
        for (Meter m : meters) {
            registry.remove(m);
        }
        meters.clear();
    }
}
