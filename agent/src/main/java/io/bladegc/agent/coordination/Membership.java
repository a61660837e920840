package io.bladegc.agent.coordination;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The node's membership at the coordinator, and whether the coordinator is up. A daemon thread named
 * {@code blade-heartbeat} joins at start, then sends a heartbeat every interval (each call bounded by
 * {@link CoordinatorClient#callBound()}: the coordinator timeout per replica, never two at once). When a call fails
 * the coordinator is down: the node fails open (single-node behaviour) and the thread tries to join again at every
 * tick, so the node re-registers by itself when the coordinator answers again. A heartbeat answered {@code 404} (the
 * coordinator restarted, or lost the node) joins again at once. Transitions are logged once each, not every tick. A
 * release or cancel the coordination thread could not deliver ({@link #releaseLater}, {@link #cancelLater}) is sent
 * once more after the next call that got an answer, whatever comes of it.
 *
 * <p>Thread-safe: the coordination thread reports failures and asks for joins while the heartbeat thread ticks.
 */
final class Membership implements AutoCloseable {
    /** How often the node says it is alive (the coordinator forgets a member after 5 s of silence by default). */
    static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    /**
     * How long after a collection's release or cancel the node says again when its JVM is due: the coordinator forgets
     * a member's due time when it collects, and with a young collection every half second under load the next one would
     * otherwise come due unseen before the next regular heartbeat (a few samples of the heap watcher, which measures
     * eden again after a collection).
     */
    static final Duration DUE_AFTER_COLLECTION = Duration.ofMillis(25);
    static final String THREAD_NAME = "blade-heartbeat";

    private enum State { JOINING, UP, DOWN }

    private final CoordinatorClient client;
    private final String nodeId;
    private final Duration interval;
    private final CoordinationCounters counters;
    private final System.Logger log;
    private final ScheduledExecutorService timer;
    private final AtomicLong unreleasedEpoch = new AtomicLong();
    private final AtomicLong uncancelledGcId = new AtomicLong();
    private State state = State.JOINING;
    private String downReason = "not joined yet";
    private boolean everJoined;
    private boolean closed;
    private volatile boolean up;
    private final Supplier<Heartbeat> heartbeat;
    private final Runnable invited;

    /**
     * @param heartbeat what each heartbeat tells the coordinator ({@link Heartbeat#of})
     * @param invited   run on the heartbeat thread when the coordinator invites the node to collect now (it would come
     *                  due during another member's full collection)
     */
    Membership(CoordinatorClient client, String nodeId, Duration interval, Supplier<Heartbeat> heartbeat,
               Runnable invited, CoordinationCounters counters, System.Logger log) {
        this.client = client;
        this.heartbeat = heartbeat;
        this.invited = invited;
        this.nodeId = nodeId;
        this.interval = interval;
        this.counters = counters;
        this.log = log;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the heartbeat thread: the first join at once, then one call per interval. */
    void start() {
        timer.scheduleWithFixedDelay(this::tick, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
        timer.execute(client::warmUp); // after the first join: that one matters more
    }

    /** @return whether the node is a member and the coordinator answered the last call (one volatile read) */
    boolean isUp() {
        return up;
    }

    /** @return why the coordinator counts as down, for log lines */
    synchronized String downReason() {
        return state == State.UP ? "up" : downReason;
    }

    /** One heartbeat-thread step; package-private for tests. */
    void tick() {
        State s;
        synchronized (this) {
            if (closed) {
                return; // a heartbeat scheduled before close: nothing may follow the leave
            }
            s = state;
        }
        try {
            if (s == State.UP) {
                if (client.heartbeat(heartbeat.get())) {
                    invited.run();
                }
            } else {
                client.join();
                joined();
            }
            deliverLeftovers();
        } catch (CoordinatorException e) {
            if (s == State.UP && e.kind() == CoordinatorException.Kind.UNKNOWN_NODE) {
                forgotten();
                rejoinNow();
            } else {
                markDown(e);
            }
        } catch (RuntimeException e) {
            markDown("heartbeat failed: " + CoordinatorAnswers.describe(e));
        }
    }

    /**
     * Sends one heartbeat {@link #DUE_AFTER_COLLECTION} from now, besides the regular ones, when the node is a member:
     * after a collection, so that the coordinator learns the node's next due time before the next regular heartbeat.
     */
    void heartbeatSoon() {
        if (up) {
            try {
                timer.schedule(this::tick, DUE_AFTER_COLLECTION.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                // closed meanwhile
            }
        }
    }

    /** A release that got no answer: send it once more when the coordinator answers again. */
    void releaseLater(long epoch) {
        unreleasedEpoch.set(epoch);
    }

    /** A cancel that got no answer: send it once more when the coordinator answers again. */
    void cancelLater(long gcId) {
        uncancelledGcId.set(gcId);
    }

    private void deliverLeftovers() {
        long epoch = unreleasedEpoch.getAndSet(0);
        long gcId = uncancelledGcId.getAndSet(0);
        try {
            if (epoch != 0) {
                client.release(epoch, 0);
            }
        } catch (CoordinatorException e) {
            if (e.kind() == CoordinatorException.Kind.STALE_EPOCH) {
                counters.staleLateReleases.increment();
                log.log(Level.INFO, "Blade: node " + nodeId + ": the release of epoch " + epoch + " sent again was "
                    + "refused as stale: the lease had ended at the coordinator");
            } // down again: the lease ends on its own
        }
        try {
            if (gcId != 0) {
                client.cancel(gcId);
            }
        } catch (CoordinatorException e) {
            // as above
        }
    }

    /**
     * Joins now, on the caller's thread (bounded by {@link CoordinatorClient#callBound()}): after a {@code 404}.
     *
     * @return whether the node is a member again
     */
    boolean rejoinNow() {
        synchronized (this) {
            if (closed) {
                return false;
            }
        }
        try {
            client.join();
            joined();
            return true;
        } catch (CoordinatorException e) {
            markDown(e);
            return false;
        }
    }

    /** The coordinator answered {@code 404}: the next tick joins again. */
    synchronized void forgotten() {
        if (state == State.UP) {
            log.log(Level.INFO, "Blade: coordinator " + client.replica() + " does not know node " + nodeId
                + " (restarted?); joining again");
            state = State.JOINING;
            downReason = "forgot the node";
            up = false;
        }
    }

    /** A call failed in a way that means the coordinator is down, slow or misconfigured. */
    void markDown(CoordinatorException e) {
        markDown(CoordinatorAnswers.reason(e));
    }

    synchronized void markDown(String reason) {
        if (state != State.DOWN && !closed) {
            log.log(Level.WARNING, "Blade: coordinator " + client.coordinators() + " is unavailable (" + reason
                + "); node " + nodeId + " collects on its own (single-node) until it answers again");
        }
        state = State.DOWN;
        downReason = reason;
        up = false;
    }

    private synchronized void joined() {
        if (state == State.UP || closed) {
            return;
        }
        if (everJoined) {
            counters.rejoins.increment();
            log.log(Level.INFO, "Blade: node " + nodeId + " joined coordinator " + client.replica() + " again");
        } else {
            log.log(Level.INFO, "Blade: node " + nodeId + " joined coordinator " + client.replica());
        }
        everJoined = true;
        state = State.UP;
        downReason = "";
        up = true;
    }

    /**
     * Stops the heartbeat thread, letting a call under way end (each bounded by the client's call bound), and, unless
     * the coordinator is down, leaves: the leave is the last call, so a heartbeat or join cannot follow it and put the
     * node back at the coordinator (calls go on separate connections, so they could arrive out of order).
     */
    @Override
    public void close() {
        boolean leave;
        synchronized (this) { // closed first: a heartbeat interrupted by the shutdown below cannot mark it down
            leave = state != State.DOWN;
            closed = true;
            state = State.DOWN;
            downReason = "closed";
            up = false;
        }
        timer.shutdown(); // a call under way ends first (bounded): the leave must be the node's last word
        try {
            if (!timer.awaitTermination(client.callBound().toNanos(), TimeUnit.NANOSECONDS)) {
                timer.shutdownNow();
            }
        } catch (InterruptedException e) {
            timer.shutdownNow();
            Thread.currentThread().interrupt();
        }
        if (leave) {
            try {
                client.leave();
            } catch (CoordinatorException e) {
                // the coordinator forgets a silent member anyway
            }
        }
    }
}
