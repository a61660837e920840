package io.bladegc.grpc;

import io.bladegc.api.Gate;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The node's readiness over the standard gRPC health service ({@code grpc.health.v1.Health}), for clients, proxies
 * and probes that use it: {@code NOT_SERVING} while the gate is closed (the node drains and collects), {@code SERVING}
 * while it is open or the interceptor passes calls through. It writes into the application's {@link HealthStatusManager}, whose
 * {@link HealthStatusManager#getHealthService()} the server serves, for the service names given (the whole server,
 * {@value HealthStatusManager#SERVICE_NAME_ALL_SERVICES}, when none): Blade owns those names' statuses; the
 * application keeps the others.
 *
 * <p>The gate has no listener: it is one shared {@code AtomicLong} that the node closes on its heap watcher's thread,
 * and that copies of Blade in other class loaders (the agent's) share through JDK types only. So a daemon thread,
 * {@code blade-grpc-health}, reads it every {@value #POLL_MILLIS} ms and tells the health service when it changed.
 *
 * <p>Clients that balance on their side and watch their backends' health (grpc-java's {@code round_robin} with a
 * {@code healthCheckConfig} in its service config and {@code grpc-services} on its classpath: gRPC's client-side
 * health checking) stop sending to a node as soon as they hear {@code NOT_SERVING}. For them to hear it before the
 * node stops for its collection, this publisher holds the node's drain open: while the gate is open it counts as one
 * call in flight ({@link io.bladegc.api.Gate#inFlight()} is one higher), and once it sees the gate closed it publishes
 * {@code NOT_SERVING} and leaves the gate {@value #ANNOUNCE_MILLIS} ms later (or at the node's drain timeout, if this
 * thread is kept from running). Calls that reach the node meanwhile are shed at once, while it still runs, and
 * retried elsewhere; without the hold, a call sent in the gap would wait out the whole pause before being shed. A gate
 * closed for less than a poll may not show; calls are shed either way.
 *
 * <p>Thread-safe. {@link #close()} stops the thread and leaves the statuses as they last were; call it, and the
 * manager's {@link HealthStatusManager#enterTerminalState()}, when the server shuts down.
 */
public final class BladeHealth implements AutoCloseable {
    /** How often the gate is read, in milliseconds. */
    static final long POLL_MILLIS = 5;
    /**
     * How long the drain is held open after {@code NOT_SERVING} is published, in milliseconds: a watching client's
     * stream delivers it within a millisecond or two on a quiet host; four polls leave room for a busy one.
     */
    static final long ANNOUNCE_MILLIS = 20;

    private static final System.Logger LOG = System.getLogger(BladeHealth.class.getName());

    private final HealthStatusManager health;
    private final BladeServerInterceptor interceptor;
    private final List<String> services;
    private final ScheduledExecutorService poller;
    private ServingStatus published; // guarded by this
    private Gate held; // the gate this publisher counts as in flight, or null; guarded by this
    private long closedSeenAt; // System.nanoTime() when the held gate was first seen closed, 0 while open; this
    private boolean closed; // guarded by this

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

    private synchronized void publish() {
        if (closed) {
            return;
        }
        Gate gate = interceptor.gate(); // null: a pass-through, always serving
        boolean open = gate == null || gate.isOpen();
        ServingStatus now = open ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
        if (now != published) {
            for (String service : services) {
                health.setStatus(service, now);
            }
            published = now;
        }
        if (held == null) {
            if (open && gate != null && gate.tryEnter()) {
                held = gate;
            }
        } else if (held.isOpen()) {
            closedSeenAt = 0;
        } else if (closedSeenAt == 0) {
            closedSeenAt = System.nanoTime();
        } else if (System.nanoTime() - closedSeenAt >= TimeUnit.MILLISECONDS.toNanos(ANNOUNCE_MILLIS)) {
            release();
        }
    }

    private void release() {
        held.exit();
        held = null;
        closedSeenAt = 0;
    }

    /** Stops reading the gate and leaves it; the statuses stay as they last were. Idempotent. */
    @Override
    public void close() {
        poller.shutdownNow();
        synchronized (this) {
            closed = true;
            if (held != null) {
                release();
            }
        }
    }
}
