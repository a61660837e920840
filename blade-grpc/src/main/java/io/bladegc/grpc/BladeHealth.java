package io.bladegc.grpc;

import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The node's readiness over the standard gRPC health service ({@code grpc.health.v1.Health}), for proxies and probes
 * that use it: {@code NOT_SERVING} while the gate is closed (the node drains and collects), {@code SERVING} while it
 * is open or the interceptor passes calls through. It writes into the application's {@link HealthStatusManager}, whose
 * {@link HealthStatusManager#getHealthService()} the server serves, for the service names given (the whole server,
 * {@value HealthStatusManager#SERVICE_NAME_ALL_SERVICES}, when none): Blade owns those names' statuses; the
 * application keeps the others.
 *
 * <p>The gate has no listener: it is one shared {@code AtomicLong} that the node closes on its heap watcher's thread,
 * and that copies of Blade in other class loaders (the agent's) share through JDK types only. So a daemon thread,
 * {@code blade-grpc-health}, reads it every 5 ms and tells the health service when it changed. A
 * gate closed for less than that may not show; calls are shed with a retry pushback either way, and proxies check
 * health every few seconds: the health service keeps a proxy away during long outages, the interceptor handles each
 * collection.
 *
 * <p>Thread-safe. {@link #close()} stops the thread and leaves the statuses as they last were; call it, and the
 * manager's {@link HealthStatusManager#enterTerminalState()}, when the server shuts down.
 */
public final class BladeHealth implements AutoCloseable {
    /** How often the gate is read, in milliseconds. */
    static final long POLL_MILLIS = 5;

    private static final System.Logger LOG = System.getLogger(BladeHealth.class.getName());

    private final HealthStatusManager health;
    private final BladeServerInterceptor interceptor;
    private final List<String> services;
    private final ScheduledExecutorService poller;
    private ServingStatus published; // by start, then by the poller's thread only (scheduling orders the two)

    private BladeHealth(HealthStatusManager health, BladeServerInterceptor interceptor, List<String> services) {
        this.health = health;
        this.interceptor = interceptor;
        this.services = services;
        this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "blade-grpc-health");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Publishes the gate's state now and keeps it published.
     *
     * @param health      the manager behind the server's health service
     * @param interceptor the interceptor whose gate decides
     * @param services    the service names whose status Blade sets; none for the whole server ({@code ""})
     * @return the running publisher
     * @throws NullPointerException when an argument or a service name is null
     */
    public static BladeHealth start(HealthStatusManager health, BladeServerInterceptor interceptor,
                                    String... services) {
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(interceptor, "interceptor");
        List<String> names = services.length == 0 ? List.of(HealthStatusManager.SERVICE_NAME_ALL_SERVICES)
            : List.of(services);
        BladeHealth h = new BladeHealth(health, interceptor, names);
        h.publish();
        h.poller.scheduleWithFixedDelay(h::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
        return h;
    }

    private void poll() {
        try {
            publish();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Blade gRPC health: cannot set the health status: " + e, e);
        }
    }

    private void publish() {
        ServingStatus now = interceptor.isGateOpen() ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
        if (now != published) {
            for (String service : services) {
                health.setStatus(service, now);
            }
            published = now;
        }
    }

    /** Stops reading the gate; the statuses stay as they last were. Idempotent. */
    @Override
    public void close() {
        poller.shutdownNow();
    }
}
