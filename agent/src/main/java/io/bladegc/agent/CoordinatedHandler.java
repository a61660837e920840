package io.bladegc.agent;

import io.bladegc.agent.CoordinatorException.Kind;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.DrainedCollection;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The upcall handler of the coordinated mode (BLADE section 4.1): the node collects only with a slot from the
 * coordinator, which has taken it out of the load balancer by the time it grants.
 *
 * <p>The upcall only records the request and returns {@link GcDecision#DEFER}; one daemon thread named
 * {@value #THREAD_NAME} does the rest, one request at a time:
 * <ol>
 *   <li><b>acquire</b> a slot, with the watcher's lead time as urgency, long-polling at most half the coordinator
 *       timeout and no longer than the lead time (at least {@value #MIN_WAIT_MILLIS} ms); a {@code QUEUED} (or
 *       {@code CANCELLED}: dropped meanwhile) answer asks again. While a call is out the thread checks every
 *       {@value CallWatcher#POLL_MILLIS} ms whether the JVM collected on its own (the node MBean's collection count, see
 *       {@link NodeProbe}): then it <b>cancels</b> at once;</li>
 *   <li>on a <b>grant</b>, unless the lease would end before the collection could start (now + drain timeout +
 *       margin past the lease end: then it does not collect under that grant, it cancels: <b>fenced</b>),
 *       {@link BladeNode#drainAndCollect(long)}: gate closed, trailers drained, collected, gate open;</li>
 *   <li><b>release</b> with the grant's epoch and the measured pause. A {@code 409} (stale epoch: the lease ended) is
 *       logged and counted, never retried.</li>
 * </ol>
 * <b>Fail open:</b> when the coordinator is known to be down, or a call fails (refused or no answer within
 * {@code coordinatorTimeout} at every replica, 5xx, bad answer, 400, 401/403; see {@link CoordinatorClient} for the
 * fail-over between replicas), the node collects locally at once, as a single node does ({@code drainAndCollect}),
 * and the coordinator counts as down until {@link Membership}'s heartbeat thread gets it to answer a join again. A
 * {@code 404} joins again and asks once more. So with the coordinator down, slow or black-holed a collection starts
 * no later than {@code coordinatorTimeout} (plus 100 ms of grace) after the upcall, whatever the number of replicas.
 *
 * <p>A release or cancel that got no answer (the coordinator was down) is handed to {@link Membership}, whose
 * heartbeat thread sends it once more when the coordinator answers again, so that a grant left behind does not make
 * the coordinator refuse the next request until its lease ends.
 *
 * <p>The handler asks the node to raise its upcalls earlier by the recent worst schedule time ({@link ScheduleLead}),
 * so that a node that queued behind another has the room to wait for its turn the next time.
 *
 * <p>One log line per GC event with its timeline ({@link GcTimeline}: T_schedule, T_trailers, T_gc, T_notify).
 *
 * <p>Thread-safe: {@link #onGcRequest} runs on the node's watcher thread and only enqueues; everything else runs on
 * the coordination thread; {@link #stats()} may be read from any thread.
 */
final class CoordinatedHandler implements GcHandler, AutoCloseable {
    static final String THREAD_NAME = "blade-coordination";
    /** Shortest long poll asked for, so that a node past its lead time does not spin on {@code QUEUED} answers. */
    static final long MIN_WAIT_MILLIS = 10;
    private static final long MAX_LEAD_MILLIS = 3_600_000;
    /** The coordinator's default longest long poll ({@code --max-wait}); above it an acquire is refused. */
    static final long MAX_WAIT_MILLIS = 60_000;
    /** {@code CANCELLED} answers in a row after which the node stops asking and collects on its own. */
    private static final int MAX_CANCELLED_ANSWERS = 3;

    private final BladeNode node;
    private final CoordinatorClient client;
    private final Membership membership;
    private final CoordinationCounters counters;
    private final NodeProbe probe;
    private final BladeOptions options;
    private final System.Logger log;
    private final long timeoutNanos;
    private final long maxWaitMillis;
    private final long fallbackLeadMillis;
    private final BlockingQueue<Pending> inbox = new LinkedBlockingQueue<>();
    private final CallWatcher watcher;
    private final ScheduleLead scheduleLead;
    private final Thread thread;
    private volatile boolean closed;
    private volatile String lastEvent = "";

    /** A request handed over by the upcall, with what the node looked like then. */
    private record Pending(GcRequest request, long upcallNanos, long collectionsAtUpcall) {
    }

    private static final Pending STOP = new Pending(new GcRequest(0, 0, 0, Duration.ZERO, Generation.YOUNG), 0, -1);

    /**
     * @param node       the node whose collections this handler schedules
     * @param client     the coordinator
     * @param membership whether the coordinator is up; joins again
     * @param counters   where the events are counted
     * @param probe      the node's collection count and lead time
     * @param options    drain timeout, margin, sample interval, coordinator timeout, coordinator, node id
     * @param log        where the one line per GC event goes
     */
    CoordinatedHandler(BladeNode node, CoordinatorClient client, Membership membership, CoordinationCounters counters,
                       NodeProbe probe, BladeOptions options, System.Logger log) {
        this.node = node;
        this.client = client;
        this.membership = membership;
        this.counters = counters;
        this.probe = probe;
        this.options = options;
        this.log = log;
        this.timeoutNanos = options.coordinatorTimeout().toNanos();
        this.maxWaitMillis = options.coordinatorTimeout().toMillis() / 2;
        this.fallbackLeadMillis = Math.max(1, options.margin().toMillis() + 2 * options.sampleInterval().toMillis());
        this.watcher = new CallWatcher(options.coordinatorTimeout(), () -> !inbox.isEmpty());
        this.scheduleLead = new ScheduleLead(timeoutNanos);
        this.thread = new Thread(this::run, THREAD_NAME);
        this.thread.setDaemon(true);
    }

    /** Starts the coordination thread. */
    void start() {
        thread.start();
    }

    @Override
    public GcDecision onGcRequest(GcRequest request) {
        if (closed) {
            return GcDecision.COLLECT_NOW;
        }
        inbox.add(new Pending(request, System.nanoTime(), probe.collections()));
        return GcDecision.DEFER;
    }

    /** @return the recent worst time from an upcall to its grant, which the node adds to its lead time */
    @Override
    public long scheduleLeadNanos() {
        return scheduleLead.nanos();
    }

    /** @return the counters, whether the coordinator is up, and the last event's line; JDK types only */
    Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("Coordinator", options.coordinatorsText());
        m.put("CoordinatorReplica", client.replica().toString());
        m.put("NodeId", options.nodeId());
        m.put("CoordinatorUp", membership.isUp());
        m.put("ScheduleLeadMs", scheduleLead.nanos() / 1_000_000);
        counters.putInto(m);
        m.put("LastEvent", lastEvent);
        return m;
    }

    /**
     * Stops the thread after the request in hand (a wait for a grant is cancelled at the coordinator) and waits for
     * it, at most the drain timeout plus one coordinator call ({@link CoordinatorClient#callBound()}), so that a
     * release of a collection in progress reaches the coordinator before the node leaves.
     */
    @Override
    public void close() {
        closed = true;
        inbox.add(STOP);
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(options.drainTimeout().plus(client.callBound()).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        while (!closed) {
            Pending p;
            try {
                p = inbox.take();
            } catch (InterruptedException e) {
                return;
            }
            for (Pending newer = inbox.poll(); newer != null; newer = inbox.poll()) {
                p = newer; // an older request is moot: the node issues a new one only after the JVM collected
            }
            if (p == STOP || closed) {
                return;
            }
            try {
                coordinate(p);
            } catch (Throwable t) {
                try {
                    log.log(Level.ERROR, "Blade GC #" + p.request().id() + ": coordination failed", t);
                } catch (Throwable ignored) {
                    // nothing left to do; the JVM collects on its own
                }
            }
        }
    }

    private void coordinate(Pending p) {
        GcRequest r = p.request();
        if (!membership.isUp()) {
            failOpen(p, "coordinator " + membership.downReason());
            return;
        }
        int polls = 0;
        int position = 0;
        int cancelledAnswers = 0;
        boolean rejoined = false;
        AcquireAnswer grant = null;
        while (grant == null) {
            long lead = leadMillis(p);
            CallWatcher.Waited<AcquireAnswer> w =
                watcher.await(client.acquire(r.id(), lead, waitMillis(lead)), () -> collectedSince(p));
            if (w.collected()) {
                scheduleLead.overtaken(System.nanoTime() - p.upcallNanos());
                cancel(p, polls == 0 ? "the JVM collected on its own while the node asked for a slot"
                    : "the JVM collected on its own while queued at position " + position);
                return;
            }
            if (w.superseded()) {
                cancel(p, closed ? "the agent is stopping" : "a newer GC request came");
                return;
            }
            if (w.failure() != null) {
                CoordinatorException e = w.failure();
                if (e.kind() == Kind.UNKNOWN_NODE && !rejoined) {
                    rejoined = true;
                    membership.forgotten();
                    if (membership.rejoinNow()) {
                        continue;
                    }
                    failOpen(p, "coordinator " + membership.downReason());
                    return;
                }
                if (e.kind().coordinatorDown()) {
                    membership.markDown(e);
                }
                if (e.kind() == Kind.TIMEOUT) {
                    client.cancelQuietly(r.id()); // in case it answers after all: do not leave a slot taken
                }
                failOpen(p, "coordinator " + Membership.reason(e));
                return;
            }
            AcquireAnswer a = w.value();
            if (a.granted()) {
                grant = a;
            } else if (a.cancelled()) {
                if (++cancelledAnswers >= MAX_CANCELLED_ANSWERS) {
                    failOpen(p, "coordinator dropped the request " + cancelledAnswers + " times");
                    return;
                }
            } else {
                if (polls++ == 0) {
                    counters.queuedWaits.increment();
                }
                position = a.position();
            }
        }
        collectUnder(p, grant, polls);
    }

    private void collectUnder(Pending p, AcquireAnswer grant, int polls) {
        GcRequest r = p.request();
        counters.grants.increment();
        long granted = System.nanoTime();
        long schedule = granted - p.upcallNanos();
        String how = "granted (epoch " + grant.epoch() + (polls == 0 ? "" : ", after " + polls + " queued poll"
            + (polls == 1 ? "" : "s")) + ")";
        if (collectedSince(p)) {
            scheduleLead.overtaken(schedule);
            cancel(p, "the JVM collected on its own before the grant (epoch " + grant.epoch() + ") arrived");
            return;
        }
        scheduleLead.granted(schedule);
        long leaseLeft = grant.leaseEndNanos() - granted;
        long needed = options.drainTimeout().toNanos() + options.margin().toNanos();
        if (leaseLeft < needed) {
            counters.fenced.increment();
            String note = cancelAtCoordinator(r.id());
            emit(Level.WARNING, new GcTimeline(r, "fenced (epoch " + grant.epoch() + ": its lease ends in "
                + leaseLeft / 1_000_000 + " ms, the drain may take " + needed / 1_000_000
                + " ms; not collecting under it)", schedule, -1, -1, -1, null, note));
            return;
        }
        long pauseBefore = node.pauseNanos();
        DrainedCollection d;
        try {
            d = node.drainAndCollect(r.id());
        } catch (IllegalArgumentException e) {
            cancel(p, "the request was superseded before the drain");
            return;
        }
        long end = System.nanoTime();
        long pause = node.pauseNanos() - pauseBefore;
        long pauseMillis = pause > 0 ? (pause + 999_999) / 1_000_000 : d.gc().toMillis();
        Level level = Level.INFO;
        String note;
        long notify = -1;
        try {
            client.release(grant.epoch(), pauseMillis);
            notify = System.nanoTime() - end;
            note = "released";
        } catch (CoordinatorException e) {
            level = Level.WARNING;
            if (e.kind() == Kind.STALE_EPOCH) {
                counters.staleReleases.increment();
                note = "release refused as stale: the lease had ended at the coordinator (not retried; "
                    + e.getMessage() + ")";
            } else if (e.kind() == Kind.UNKNOWN_NODE) {
                membership.forgotten();
                note = "release: the coordinator does not know this node; it joins again";
            } else {
                if (e.kind().coordinatorDown()) {
                    membership.markDown(e);
                }
                membership.releaseLater(grant.epoch());
                note = "release failed, sent again when the coordinator answers (" + Membership.reason(e) + ")";
            }
        }
        if (!d.drained()) {
            note += "; the drain timed out with requests in flight";
        }
        emit(level, new GcTimeline(r, how, schedule, d.trailers().toNanos(), d.gc().toNanos(), notify, d.outcome(),
            note));
    }

    /** Collects without the coordinator, as a single node does. */
    private void failOpen(Pending p, String why) {
        GcRequest r = p.request();
        counters.failOpens.increment();
        long schedule = System.nanoTime() - p.upcallNanos();
        String how = "fail-open (" + why + ")";
        if (collectedSince(p)) {
            emit(Level.INFO, new GcTimeline(r, how, schedule, -1, -1, -1, null,
                "the JVM had collected on its own already"));
            return;
        }
        DrainedCollection d;
        try {
            d = node.drainAndCollect(r.id());
        } catch (IllegalArgumentException e) {
            emit(Level.INFO, new GcTimeline(r, how, schedule, -1, -1, -1, null, "superseded by a newer request"));
            return;
        }
        emit(Level.INFO, new GcTimeline(r, how, schedule, d.trailers().toNanos(), d.gc().toNanos(), -1, d.outcome(),
            "collected locally (single-node)" + (d.drained() ? "" : "; the drain timed out with requests in flight")));
    }

    /** Withdraws the request at the coordinator (out of the queue, a grant for it given back) and logs why. */
    private void cancel(Pending p, String why) {
        long schedule = System.nanoTime() - p.upcallNanos();
        String note = cancelAtCoordinator(p.request().id());
        emit(Level.INFO, new GcTimeline(p.request(), "cancelled (" + why + ")", schedule, -1, -1, -1, null, note));
    }

    /** @return what came of it, for the log line */
    private String cancelAtCoordinator(long gcId) {
        counters.cancels.increment();
        try {
            client.cancel(gcId);
            return "cancelled at the coordinator";
        } catch (CoordinatorException e) {
            if (e.kind().coordinatorDown()) {
                membership.markDown(e);
                membership.cancelLater(gcId);
            } else if (e.kind() == Kind.UNKNOWN_NODE) {
                membership.forgotten();
            }
            return "cancel failed (" + Membership.reason(e) + ")";
        }
    }


    private boolean collectedSince(Pending p) {
        return p.collectionsAtUpcall() >= 0 && probe.collections() > p.collectionsAtUpcall();
    }

    /** @return the time left before the JVM collects on its own: the watcher's prediction, else a floor estimate */
    private long leadMillis(Pending p) {
        long lead = probe.leadTimeMillis();
        if (lead < 0) {
            lead = fallbackLeadMillis - (System.nanoTime() - p.upcallNanos()) / 1_000_000;
        }
        return Math.max(0, Math.min(MAX_LEAD_MILLIS, lead));
    }

    /** @return how long the coordinator may hold an acquire: the lead time, in [10 ms, timeout / 2], at most 60 s */
    private long waitMillis(long leadMillis) {
        return Math.min(MAX_WAIT_MILLIS, Math.min(maxWaitMillis, Math.max(MIN_WAIT_MILLIS, leadMillis)));
    }

    private void emit(Level level, GcTimeline timeline) {
        String line = timeline.line();
        counters.timeline(timeline);
        lastEvent = line;
        log.log(level, line);
    }
}
