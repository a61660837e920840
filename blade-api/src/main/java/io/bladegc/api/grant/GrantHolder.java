package io.bladegc.api.grant;

import io.bladegc.api.BladeNode;
import io.bladegc.api.DrainedCollection;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import io.bladegc.api.slot.Ask;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The one grant-holder of a node that collects only with permission (BLADE section 4: the HTTP cluster through the
 * coordinator, Raft peers through their slot group): the upcall's path from the request to the release. What differs
 * between the two is only the {@link SlotPort} to the ledger and the {@link Preparation} (a Raft leader's hand-off).
 *
 * <p>The upcall only records the request and returns {@link GcDecision#DEFER}; one daemon thread does the rest, one
 * request at a time (an older request still waiting is moot: the node issues a new one only after the JVM collected):
 * <ol>
 *   <li><b>acquire</b> a slot, with the watcher's lead time as urgency, each call held by the ledger at most
 *       {@link HolderSettings#maxWait()} and no longer than the lead time (at least {@value #MIN_WAIT_MILLIS} ms);
 *       {@code QUEUED} (or {@code CANCELLED}: dropped meanwhile) asks again. While a call is out the thread looks every
 *       {@value CallWatcher#POLL_MILLIS} ms at the node's collection count ({@link BladeNode#collections()}): when the
 *       JVM collected on its own it <b>cancels</b> at once;</li>
 *   <li>on a <b>grant</b>, unless the JVM collected meanwhile, <b>prepare</b> ({@link Preparation#prepare}): a Raft
 *       leader hands its leadership off or collects in place, whichever costs its clients less; only under a grant,
 *       as BLADE does, so that a slot that cannot be had costs no hand-off. When the preparation fails the grant is
 *       given back and the JVM collects on its own. One that handed off closes its gate at once and keeps it closed
 *       until its collection ended: its clients, still taking it for the leader, are sent to the new one
 *       ({@code NotLeaderException}) instead of being served here as by a follower until the drain;</li>
 *   <li>then, unless the lease left, timed on this JVM's monotonic clock only ({@link SlotAnswer#leaseEndNanos()}),
 *       leaves less than the drain timeout, the expected pause and the margin (<b>fenced</b>: it cancels), {@link BladeNode#drainAndCollect(long,
 *       Generation, long)}: gate closed, trailers drained, collected, gate open; when the drain ends too late for the
 *       pause and the margin to fit in the lease (the JVM was paused during it: SIGSTOP, a suspended host), it is
 *       fenced the same way, after the drain. A young request that offered a full collection in its place
 *       ({@link GcRequest#fullInstead()}) runs the full one when the grant says the ledger took the offer
 *       ({@link SlotAnswer#full()}: nobody else is due meanwhile), so full collections happen when they disturb
 *       nobody rather than when they come due;</li>
 *   <li><b>release</b> with the grant's epoch and the measured pause. A stale epoch (the lease ended at the ledger)
 *       is logged and counted, never retried.</li>
 * </ol>
 * When the ledger cannot be asked or a call fails, {@link HolderSettings#failOpen()} decides: collect at once,
 * drained, as a single node does, or leave the collection to the JVM.
 *
 * <p>The handler asks the node to raise its upcalls earlier by the recent worst time from asking to the grant
 * (queueing included) plus what its preparation would take now ({@link Preparation#leadNanos}: a leader's
 * hand-off), so that a node that queued behind another has the room to wait for its turn the next time, and a
 * follower elected leader asks early enough to hand off first.
 * One log line per GC event with its timeline ({@code Blade GC #12 YOUNG granted (epoch 7): T_schedule 1.2 ms,
 * T_trailers 0.3 ms, T_gc 6.1 ms (COLLECTED), T_notify 0.4 ms; released}): at INFO for the first
 * {@value #EVENTS_AT_INFO} after start, then at DEBUG (the node tells a summary per minute at INFO); warnings always
 * as warnings.
 *
 * <p>Thread-safe: {@link #onGcRequest} runs on the node's watcher thread and only enqueues; everything else runs on
 * the holder's thread; {@link #stats()} and {@link #pauses()} may be read from any thread.
 */
public final class GrantHolder implements GcHandler, AutoCloseable {
    /** Shortest wait asked for, so that a node past its lead time does not spin on {@code QUEUED} answers. */
    static final long MIN_WAIT_MILLIS = 10;
    private static final long MAX_LEAD_MILLIS = 3_600_000;
    /** Event lines told at INFO after start, as the node tells its own; later ones at DEBUG. */
    static final int EVENTS_AT_INFO = 5;
    /** {@code CANCELLED} answers in a row after which the node stops asking. */
    private static final int MAX_CANCELLED_ANSWERS = 3;

    private final BladeNode node;
    private final SlotPort port;
    private final Preparation preparation;
    private final HolderSettings settings;
    private final System.Logger log;
    private final String label;
    private final HolderCounters counters = new HolderCounters();
    private final RecentPauses pauses = new RecentPauses();
    private final BlockingQueue<Pending> inbox = new LinkedBlockingQueue<>();
    private final CallWatcher watcher;
    private final ScheduleLead scheduleLead;
    private final Thread thread;
    private volatile Runnable stopListening = () -> { };
    private volatile boolean closed;
    /** Whether the holder's thread has a request in hand (from the upcall until it ended). */
    private volatile boolean holding;
    private volatile String lastEvent = "";
    private int eventsTold;

    /** A request handed over by the upcall, with what the node looked like then. */
    private record Pending(GcRequest request, long upcallNanos, long collectionsAtUpcall) {
    }

    private static final Pending STOP = new Pending(new GcRequest(0, 0, 0, Duration.ZERO, Generation.YOUNG), 0, -1);

    /**
     * @param node        the node whose collections this holder schedules
     * @param port        the ledger
     * @param preparation what to do under a grant before the drain ({@link Preparation#NONE} for the HTTP cluster)
     * @param settings    waits and bounds
     * @param threadName  the name of the holder's daemon thread
     * @param label       who logs, written between {@code Blade } and {@code GC #} in each line: empty, or e.g.
     *                    {@code raft n1 } (ending in a space)
     * @param log         where the one line per GC event goes
     */
    public GrantHolder(BladeNode node, SlotPort port, Preparation preparation, HolderSettings settings,
                       String threadName, String label, System.Logger log) {
        this.node = node;
        this.port = port;
        this.preparation = preparation;
        this.settings = settings;
        this.log = log;
        this.label = label;
        this.watcher = new CallWatcher(settings.callBound().toNanos(), () -> !inbox.isEmpty());
        this.scheduleLead = new ScheduleLead(settings.callBound().toNanos(), settings.firstLead().toNanos());
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /** Starts the holder's thread and its record of the node's pauses ({@link #pauses()}). */
    public void start() {
        stopListening = node.addPauseListener(this::paused);
        thread.start();
    }

    /**
     * The node paused: recorded; a pause with no request in hand (the JVM collected before the node asked, or the node
     * left it to the JVM) moved the node out of any rhythm, so a pending shift is spent ({@link ScheduleLead}).
     */
    private void paused(Generation g, long nanos) {
        pauses.add(g, nanos);
        if (!holding && inbox.isEmpty()) {
            scheduleLead.requestCame();
        }
    }

    @Override
    public GcDecision onGcRequest(GcRequest request) {
        if (closed) {
            return settings.failOpen() ? GcDecision.COLLECT_NOW : GcDecision.DEFER;
        }
        long now = System.nanoTime();
        scheduleLead.requested(now);
        inbox.add(new Pending(request, now, node.collections()));
        return GcDecision.DEFER;
    }

    /**
     * @return the recent worst time from asking for a slot to its grant, which the node adds to its lead time; after a
     *     request that had to queue, once, also a shift that moves this node's next collection clear of the one it
     *     queued behind ({@link ScheduleLead})
     */
    @Override
    public long scheduleLeadNanos() {
        return scheduleLead.nanos();
    }

    /** @return {@link HolderSettings#leaveUnplannable()} */
    @Override
    public boolean leavesUnplannableToJvm() {
        return settings.leaveUnplannable();
    }

    /** @return what the preparation would take now ({@link Preparation#leadNanos}: a leader's hand-off) */
    @Override
    public long preparationLeadNanos() {
        return preparation.leadNanos(pauses);
    }

    /** The JVM collected on its own {@code waitedNanos} after the upcall, before the grant: ask that much earlier. */
    private void overtaken(long waitedNanos) {
        scheduleLead.overtaken(waitedNanos);
        counters.overtaken.increment();
    }

    /** This node queued behind another: it leaves that node's rhythm ({@link ScheduleLead#leaveStep}). */
    private void leaveStep() {
        scheduleLead.leaveStep(pauses.longest(Generation.OLD));
        counters.shifts.increment();
    }

    /** @return the pauses this holder measured around its collections */
    public RecentPauses pauses() {
        return pauses;
    }

    /**
     * @return how many of this holder's requests the JVM overtook (it collected on its own while the node asked,
     *     queued, waited for the grant or prepared), and how many collections ran under grants, since it started;
     *     thread-safe
     */
    public Overtaken overtaken() {
        return new Overtaken(counters.overtaken.sum(), counters.collections.sum());
    }

    /**
     * Requests the JVM overtook against collections planned (see {@link #overtaken()}). Immutable.
     *
     * @param overtaken requests the JVM collected before
     * @param collected collections that ran under a grant
     */
    public record Overtaken(long overtaken, long collected) {
    }

    /** @return the counters, the schedule lead and the last event's line; JDK types only */
    public Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ScheduleLeadMs", scheduleLead.nanos() / 1_000_000);
        m.put("PreparationLeadMs", preparationLeadNanos() / 1_000_000);
        counters.putInto(m);
        m.put("LastEvent", lastEvent);
        return m;
    }

    /**
     * Stops the thread after the request in hand (a wait for a grant is cancelled at the ledger) and waits for it, at
     * most the drain timeout plus one call bound, so that the release of a collection in progress reaches the ledger
     * before the node leaves.
     */
    @Override
    public void close() {
        closed = true;
        stopListening.run();
        inbox.add(STOP);
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(node.drainTimeout().plus(settings.callBound()).toMillis());
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
            holding = true;
            try {
                hold(p);
            } catch (Throwable t) {
                try {
                    log.log(Level.ERROR, "Blade " + label + "GC #" + p.request().id() + ": failed", t);
                } catch (Throwable ignored) {
                    // nothing left to do; the JVM collects on its own
                }
            } finally {
                holding = false;
            }
        }
    }

    private void hold(Pending p) {
        String down = port.unavailable();
        if (down != null) {
            failOpen(p, down);
            return;
        }
        Granted grant = awaitGrant(p);
        if (grant != null) {
            collectUnder(p, grant.answer(), grant.polls());
        }
    }

    /** A grant, and how many {@code QUEUED} answers came before it. */
    private record Granted(SlotAnswer answer, int polls) {
    }

    /** @return the grant, or {@code null} when the request ended otherwise (logged) */
    private Granted awaitGrant(Pending p) {
        GcRequest r = p.request();
        int polls = 0;
        int position = 0;
        int cancelledAnswers = 0;
        boolean askedAgain = false;
        long fullPause = fullOffer(r);
        if (fullPause > 0) {
            counters.fullOffers.increment();
        }
        while (true) {
            long lead = leadMillis(p);
            CallWatcher.Waited<SlotAnswer> w =
                watcher.await(port.acquire(new Ask(r.id(), lead, r.generation() == Generation.OLD,
                    r.estimatedPause().toMillis(), fullPause), waitMillis(lead)), () -> collectedSince(p));
            if (w.collected()) {
                overtaken(since(p));
                if (polls > 0) {
                    leaveStep();
                }
                cancel(p, Prepared.NOTHING, polls == 0 ? "the JVM collected on its own while the node asked for a slot"
                    : "the JVM collected on its own while queued at position " + position);
                return null;
            }
            if (w.superseded()) {
                cancel(p, Prepared.NOTHING, closed ? "the holder is stopping" : "a newer GC request came");
                return null;
            }
            if (w.failure() != null) {
                if (port.recover(r.id(), w.failure()) && !askedAgain) {
                    askedAgain = true;
                    continue;
                }
                failOpen(p, w.failure().getMessage());
                return null;
            }
            SlotAnswer a = w.value();
            switch (a.kind()) {
                case GRANTED -> {
                    counters.grants.increment();
                    return new Granted(a, polls);
                }
                case UNSCHEDULED -> {
                    counters.unscheduled.increment();
                    emit(Level.DEBUG, new GcTimeline(label, r, "left to the JVM (the coordinator has stepped down: the"
                        + " schedule cannot keep up)", Prepared.NOTHING, -1, -1, -1, -1, null, ""));
                    return null;
                }
                case CANCELLED -> {
                    if (++cancelledAnswers >= MAX_CANCELLED_ANSWERS) {
                        failOpen(p, "the ledger dropped the request " + cancelledAnswers + " times");
                        return null;
                    }
                }
                case QUEUED -> {
                    if (polls++ == 0) {
                        counters.queuedWaits.increment();
                    }
                    position = a.position();
                }
            }
        }
    }

    /**
     * @return the pause of the full collection to offer in place of a young one: the longer of the pause model's
     *     estimate and the longest full pause measured here; 0 when the request offers none (a Raft leader granted
     *     the full one weighs that pause, not the young one's, when it chooses between a hand-off and in place)
     */
    private long fullOffer(GcRequest r) {
        if (r.generation() != Generation.YOUNG || r.fullInstead().isZero()) {
            return 0;
        }
        return Math.max(1, Math.max(r.fullInstead().toMillis(), pauses.longest(Generation.OLD) / 1_000_000));
    }

    private void collectUnder(Pending p, SlotAnswer grant, int polls) {
        GcRequest asked = p.request();
        GcRequest r = grant.full() && asked.generation() == Generation.YOUNG
            ? new GcRequest(asked.id(), asked.allocatedBytes(), asked.remainingBytes(),
                Duration.ofMillis(fullOffer(asked)), Generation.OLD)
            : asked;
        long granted = System.nanoTime();
        long schedule = granted - p.upcallNanos();
        String how = "granted (epoch " + grant.epoch() + (polls == 0 ? "" : ", after " + polls + " queued poll"
            + (polls == 1 ? "" : "s")) + (r != asked ? "; in place of the young collection asked for" : "") + ")";
        if (collectedSince(p)) {
            overtaken(schedule);
            cancel(p, Prepared.NOTHING, "the JVM collected on its own before the grant (epoch " + grant.epoch()
                + ") arrived");
            return;
        }
        scheduleLead.granted(schedule); // the preparation, which follows, has a lead of its own
        if (polls > 0) {
            leaveStep();
        }
        Prepared prepared = preparation.prepare(r, pauses);
        switch (prepared.kind()) {
            case HANDED_OFF -> counters.handOffs.increment();
            case IN_PLACE -> counters.inPlace.increment();
            case FAILED -> {
                counters.handOffFailures.increment();
                String note = cancelAtLedger(r.id());
                emit(Level.WARNING, new GcTimeline(label, r, how + ", not collecting under it", prepared, schedule, -1,
                    -1, -1, null, note + "; the JVM collects on its own"));
                return;
            }
            case NOTHING -> { }
        }
        // a leader that handed off is a follower its clients still take for the leader: from now until its
        // collection ended, its gate refuses their requests, which then go to the new leader at once, rather than
        // being served here until the drain and then, sent on by a client that did not learn, held by the pause
        boolean redirecting = prepared.kind() == Prepared.Kind.HANDED_OFF && node.gate().close();
        try {
            collectPrepared(p, r, grant, prepared, how, schedule);
        } finally {
            if (redirecting) {
                node.gate().open();
            }
        }
    }

    /** Drains and collects under {@code grant} once prepared, unless the lease left is too short; releases. */
    private void collectPrepared(Pending p, GcRequest r, SlotAnswer grant, Prepared prepared, String how,
                                 long schedule) {
        GcRequest asked = p.request();
        // the last moment a collection may begin and still end inside the lease, on this JVM's clock
        long collectBy = grant.leaseEndNanos() - r.estimatedPause().toNanos() - settings.margin().toNanos();
        long drainTimeout = node.drainTimeout().toNanos();
        if (System.nanoTime() + drainTimeout - collectBy > 0) {
            fence(r, grant, prepared, schedule, -1, "its lease ends in "
                + (grant.leaseEndNanos() - System.nanoTime()) / 1_000_000 + " ms, the drain and the pause may take "
                + (grant.leaseEndNanos() - collectBy + drainTimeout) / 1_000_000 + " ms");
            return;
        }
        long pauseBefore = node.pauseNanos();
        DrainedCollection d;
        try {
            d = node.drainAndCollect(r.id(), r.generation(), collectBy);
        } catch (IllegalArgumentException e) { // the JVM collected meanwhile (a hand-off takes its time), so the node
            counters.overtaken.increment(); // moved on to a newer request
            cancel(p, prepared, "the request was superseded before the drain");
            return;
        }
        if (d.outcome() == GcOutcome.TOO_LATE) {
            fence(r, grant, prepared, schedule, d.trailers().toNanos(),
                (d.gc().isZero() ? "the drain ended " : "the collection had not begun ")
                + (System.nanoTime() - collectBy) / 1_000_000
                + " ms after the last moment to collect inside its lease");
            return;
        }
        counters.collections.increment();
        if (r != asked) {
            counters.fullsInstead.increment();
        }
        long end = System.nanoTime();
        long pause = node.pauseNanos() - pauseBefore;
        long pauseMillis = pause > 0 ? (pause + 999_999) / 1_000_000 : d.gc().toMillis();
        Released released = port.release(grant.epoch(), pauseMillis);
        long notify = released.kind() == Released.Kind.RELEASED ? System.nanoTime() - end : -1;
        if (released.kind() == Released.Kind.STALE) {
            counters.staleReleases.increment();
        }
        String note = released.note() + (d.drained() ? "" : "; the drain timed out with requests in flight");
        emit(released.kind() == Released.Kind.RELEASED ? Level.INFO : Level.WARNING, new GcTimeline(label, r, how, prepared,
            schedule, d.trailers().toNanos(), d.gc().toNanos(), notify, d.outcome(), note));
    }

    /** Does not collect under {@code grant}, whose lease would end before the collection did: gives it back. */
    private void fence(GcRequest r, SlotAnswer grant, Prepared prepared, long schedule, long trailers, String why) {
        counters.fenced.increment();
        String note = cancelAtLedger(r.id());
        emit(Level.WARNING, new GcTimeline(label, r, "fenced (epoch " + grant.epoch() + ": " + why
            + "; not collecting under it)", prepared, schedule, trailers, -1, -1, null, note));
    }

    /** Without the ledger: collects at once, drained, as a single node does; or leaves it to the JVM. */
    private void failOpen(Pending p, String why) {
        GcRequest r = p.request();
        counters.failOpens.increment();
        long schedule = since(p);
        if (!settings.failOpen()) {
            emit(Level.WARNING, new GcTimeline(label, r, "left to the JVM (" + why + ")", Prepared.NOTHING, schedule, -1, -1, -1,
                null, "the JVM collects on its own"));
            return;
        }
        String how = "fail-open (" + why + ")";
        if (collectedSince(p)) {
            emit(Level.INFO, new GcTimeline(label, r, how, Prepared.NOTHING, schedule, -1, -1, -1, null,
                "the JVM had collected on its own already"));
            return;
        }
        DrainedCollection d;
        try {
            d = node.drainAndCollect(r.id());
        } catch (IllegalArgumentException e) {
            emit(Level.INFO, new GcTimeline(label, r, how, Prepared.NOTHING, schedule, -1, -1, -1, null,
                "superseded by a newer request"));
            return;
        }
        emit(Level.INFO, new GcTimeline(label, r, how, Prepared.NOTHING, schedule, d.trailers().toNanos(), d.gc().toNanos(), -1,
            d.outcome(), "collected locally (single-node)"
            + (d.drained() ? "" : "; the drain timed out with requests in flight")));
    }

    /** Withdraws the request at the ledger (out of the queue, a grant for it given back) and logs why. */
    private void cancel(Pending p, Prepared prepared, String why) {
        String note = cancelAtLedger(p.request().id());
        emit(Level.INFO, new GcTimeline(label, p.request(), "cancelled (" + why + ")", prepared, since(p), -1, -1, -1, null,
            note));
    }

    private String cancelAtLedger(long gcId) {
        counters.cancels.increment();
        return port.cancel(gcId);
    }

    private boolean collectedSince(Pending p) {
        return p.collectionsAtUpcall() >= 0 && node.collections() > p.collectionsAtUpcall();
    }

    private static long since(Pending p) {
        return System.nanoTime() - p.upcallNanos();
    }

    /** @return the time left before the JVM collects on its own: the watcher's prediction, else a floor estimate */
    private long leadMillis(Pending p) {
        long lead = node.leadTimeMillis();
        if (lead < 0) {
            lead = settings.fallbackLead().toMillis() - since(p) / 1_000_000;
        }
        return Math.max(0, Math.min(MAX_LEAD_MILLIS, lead));
    }

    /** @return how long the ledger may hold an acquire: the lead time, at least 10 ms, at most the longest wait */
    private long waitMillis(long leadMillis) {
        return Math.min(settings.maxWait().toMillis(), Math.max(MIN_WAIT_MILLIS, leadMillis));
    }

    private void emit(Level level, GcTimeline timeline) {
        String line = timeline.line();
        counters.timeline(timeline);
        lastEvent = line;
        log.log(level == Level.INFO && eventsTold++ >= EVENTS_AT_INFO ? Level.DEBUG : level, line);
    }
}
