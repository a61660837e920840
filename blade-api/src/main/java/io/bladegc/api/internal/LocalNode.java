package io.bladegc.api.internal;

import io.bladegc.api.BladeOptions;
import io.bladegc.api.DrainedCollection;
import io.bladegc.api.Gate;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import io.bladegc.api.StartedNode;
import io.bladegc.api.collector.CollectorKind;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ObjLongConsumer;
import java.util.function.ToLongFunction;

/**
 * The node that runs in this JVM: wires the {@link HeapWatcher}, the {@link PauseModel}, {@link GcEvents}, the
 * {@link GcTrigger} and the {@link Gate}, issues upcalls and, with the default handler, runs the single-node
 * {@link DrainSequence} on its {@code blade-gc} thread.
 *
 * <p>Thread-safe.
 */
public final class LocalNode implements StartedNode {
    static final System.Logger LOG = System.getLogger("io.bladegc");
    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(2);
    /** The most young collections taken after a forced one in the same window ({@link HeapWatcher#nextDueUnseen}). */
    private static final int MAX_FOLLOW_UPS = 3;

    /** How many escapes are told at INFO (see {@link #logEscape}). */
    private static final int ESCAPES_AT_INFO = 5;
    /** How many collections left to the JVM are told at INFO (see {@link #leaveToJvm}). */
    private static final int LEFT_AT_INFO = 5;

    private final BladeOptions options;
    private final HeapLayout layout;
    private final PauseModel pauseModel = new PauseModel();
    private final PromotionRoomNotice promotionRoom = new PromotionRoomNotice();
    private final Gate gate = new Gate();
    private final GcTrigger trigger;
    private final HeapWatcher watcher;
    private final GcEvents events;
    private final ExecutorService gcThread;
    private final DrainSequence drainSequence;
    private final AtomicInteger gateUsers = new AtomicInteger();
    private final AtomicLong nextId = new AtomicLong();
    private final AtomicLong pauseNanos = new AtomicLong();
    private final NodeCounters counters = new NodeCounters();
    private final MinuteSummary minutes = new MinuteSummary(System.nanoTime(), 0);
    private volatile GcHandler handler;
    private final AtomicReference<Issued> outstanding = new AtomicReference<>();
    private final List<ObjLongConsumer<Generation>> pauseListeners = new CopyOnWriteArrayList<>();
    private Issued lastIssued;
    /** The collection count at which the node left the next collection to the JVM; -1 when it did not. */
    private final AtomicLong leftAt = new AtomicLong(-1);

    /** A request and the JVM's collection count its prediction was made at (a collection after it makes it moot). */
    private record Issued(GcRequest request, long collectionsSeen) {
    }

    private LocalNode(BladeOptions options) {
        this.options = options;
        this.layout = HeapLayout.current();
        this.trigger = new GcTrigger(layout);
        this.drainSequence = new DrainSequence(layout, gate, options.drainTimeout(), this, counters,
            minutes);
        this.watcher = new HeapWatcher(layout, options.sampleInterval(), this::ownLeadNanos, this::handlerLeadNanos,
            this::preparationLeadNanos, this::onLowLead, trigger::forcingEpoch);
        this.gcThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "blade-gc");
            t.setDaemon(true);
            return t;
        });
        this.events = GcEvents.listen(layout, this::onCollection);
    }

    /** Starts a node: listeners, watcher thread, start-up warnings. */
    public static LocalNode start(BladeOptions options) {
        LocalNode node = new LocalNode(options);
        StartupReport.warn(node.layout, node.trigger).forEach(w -> LOG.log(Level.WARNING, w));
        if (node.layout.schedulable()) {
            node.watcher.start();
        }
        return node;
    }

    /** Stops the threads and listeners. */
    @Override
    public void stop() {
        watcher.stop();
        events.close();
        gcThread.shutdownNow();
        gate.open();
    }

    /**
     * @return the lead the watcher asks at: the wait for its next sample near the trigger (it asks on the last sample
     *     before the crossing), the recent worst drain, the margin, and what a handler needs first; the watcher adds
     *     its own recent late wake-ups. Without a handler the gate closes as the watcher asks, so from then on only the
     *     requests in flight allocate
     */
    long neededLeadNanos() {
        return ownLeadNanos() + handlerLeadNanos();
    }

    /** @return the lead this node needs by itself: the wait for a sample near the trigger, a drain and the margin */
    private long ownLeadNanos() {
        return nearSampleNanos() + drainSequence.drainEstimateNanos() + options.margin().toNanos();
    }

    /** @return how far apart the watcher's samples are when it comes near the point where it asks */
    private long nearSampleNanos() {
        return HeapWatcher.nearInterval(options.sampleInterval().toNanos());
    }

    /** @return what the registered handler needs before it lets the node drain; 0 when it fails to say */
    private long handlerLeadNanos() {
        return handlerSays(GcHandler::scheduleLeadNanos);
    }

    /** @return what the registered handler does before it asks (a leader's hand-off); 0 when it fails to say */
    long preparationLeadNanos() {
        return handlerSays(GcHandler::preparationLeadNanos);
    }

    /** @return the registered handler's answer to {@code question}; 0 when it fails to say, or there is none */
    private long handlerSays(ToLongFunction<GcHandler> question) {
        GcHandler h = handler;
        if (h == null) {
            return 0;
        }
        try {
            return Math.max(0, question.applyAsLong(h));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private boolean armed() {
        return layout.schedulable() && (handler != null || gateUsers.get() > 0);
    }

    private void onLowLead(HeapWatcher.Prediction p) {
        if (!armed() || outstanding.get() != null || layout.collectionCount() != p.collectionsSeen()) {
            return; // the last: the JVM collected since the sample, so the prediction is moot
        }
        if (p.leaveReason() != null && handlerSays(h -> h.leavesUnplannableToJvm() ? 1 : 0) != 0) {
            leaveToJvm(p);
            return;
        }
        if (p.fullReason() != null) {
            // on G1 exceptional (its old generation is reclaimed concurrently), so told at INFO each time
            LOG.log(layout.kind() == CollectorKind.G1 ? Level.INFO : Level.DEBUG,
                () -> "Blade: planning a full collection: " + p.fullReason());
        }
        issue(p.generation(), p.allocatedBytes(), p.headroomBytes(),
            p.oldSoon() ? pauseModel.next(Generation.OLD) : Duration.ZERO, p.collectionsSeen());
    }

    /**
     * Leaves the coming young collection to the JVM: planning it would cost more than it hides (see
     * {@link HeapWatcher.Prediction#leaveReason()}). Counted and told once per collection, at INFO for the first few.
     */
    private void leaveToJvm(HeapWatcher.Prediction p) {
        long before = leftAt.getAndSet(p.collectionsSeen());
        if (before == p.collectionsSeen()) {
            return; // told on an earlier sample of this cycle
        }
        counters.leftToJvm.increment();
        LOG.log(counters.leftToJvm.sum() <= LEFT_AT_INFO ? Level.INFO : Level.DEBUG,
            () -> "Blade: leaving the next young collection to the JVM: " + p.leaveReason());
    }

    @Override
    public boolean collectEarly() {
        if (!armed() || outstanding.get() != null) {
            return false;
        }
        long seen = layout.collectionCount();
        long used = layout.edenUsage().getUsed();
        long capacity = watcher.lastCapacity();
        if (capacity <= 0 || used < capacity / 2) {
            return false;
        }
        issue(Generation.YOUNG, used, capacity - used, Duration.ZERO, seen);
        return true;
    }

    @Override
    public boolean requestCollection() {
        if (!armed()) {
            return false;
        }
        if (outstanding.get() == null) {
            issue(Generation.OLD, 0, 0, Duration.ZERO, layout.collectionCount());
        }
        return true;
    }

    /**
     * Issues an upcall unless one is outstanding (then the caller joins that one); a collection after
     * {@code collectionsSeen} makes it moot.
     */
    private void issue(Generation g, long allocatedBytes, long headroomBytes, Duration fullInstead,
                       long collectionsSeen) {
        GcRequest request = new GcRequest(nextId.incrementAndGet(), allocatedBytes, headroomBytes,
            pauseModel.next(g), g, fullInstead);
        Issued issued = new Issued(request, collectionsSeen);
        synchronized (this) {
            if (!outstanding.compareAndSet(null, issued)) {
                return;
            }
            lastIssued = issued;
        }
        counters.requests.increment();
        GcHandler h = handler;
        if (h == null) {
            // closed here, on the thread that saw the trigger come near: from now on only the requests in flight
            // allocate, so a blade-gc thread that a busy machine wakes late costs shed requests, not an escape
            gate.close();
            long closed = System.nanoTime();
            try {
                gcThread.execute(() -> {
                    try {
                        drainSequence.runClosed(request, true, closed, DrainSequence.NO_DEADLINE);
                    } catch (RuntimeException e) {
                        LOG.log(Level.ERROR, "Blade GC #" + request.id() + " failed", e);
                    }
                });
            } catch (RejectedExecutionException e) { // stopped meanwhile
                gate.open();
                outstanding.compareAndSet(issued, null);
            }
            return;
        }
        GcDecision decision;
        try {
            decision = h.onGcRequest(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Blade upcall handler failed; collecting now", e);
            decision = GcDecision.COLLECT_NOW;
        }
        if (decision != GcDecision.DEFER) {
            gcThread.execute(() -> startGc(request.id()));
        }
    }

    private void onCollection(GcEvents.Collection c) {
        String notice = promotionRoom.check(c);
        if (notice != null) {
            LOG.log(Level.WARNING, notice);
        }
        if (c.pause()) {
            pauseNanos.addAndGet(c.durationNanos());
            pauseModel.record(c.generation(), c.workBytes(), c.durationNanos());
        }
        if (!c.reclaims()) {
            return;
        }
        if (c.pause()) {
            for (ObjLongConsumer<Generation> l : pauseListeners) {
                l.accept(c.generation(), c.durationNanos());
            }
        }
        counters.collections.increment();
        watcher.onCollection(c);
        boolean forced = trigger.isForced(c.bean(), c.id());
        boolean left = leftAt.getAndSet(-1) >= 0;
        MinuteSummary.Kind kind;
        // a collection for another cause is counted under it, even one that came while Blade forced another
        if (c.kind() == GcCause.OTHER) {
            counters.otherCause.increment();
            kind = MinuteSummary.Kind.OTHER_CAUSE;
        } else if (forced) {
            counters.forced.increment();
            if (c.generation() == Generation.OLD) {
                counters.forcedFull.increment();
            }
            kind = MinuteSummary.Kind.FORCED;
        } else if (left) {
            kind = MinuteSummary.Kind.LEFT_TO_JVM;
        } else if (armed()) {
            counters.escaped.increment();
            kind = MinuteSummary.Kind.ESCAPED;
            logEscape(c);
        } else {
            kind = MinuteSummary.Kind.UNPLANNED;
        }
        if (!forced) {
            outstanding.set(null); // the JVM collected on its own: the request is moot, a new one may come
        }
        String minute = minutes.collected(kind, System.nanoTime(), gate.shed());
        if (minute != null) {
            LOG.log(Level.INFO, minute);
        }
    }

    /** Says what an escape looked like, at INFO for the first few, then at DEBUG: where to look is in the line. */
    private void logEscape(GcEvents.Collection c) {
        Issued pending = outstanding.get();
        LOG.log(counters.escaped.sum() <= ESCAPES_AT_INFO ? Level.INFO : Level.DEBUG, () -> "Blade: the JVM collected"
            + " on its own (" + c.bean() + " #" + c.id() + ", " + c.cause() + ", eden " + (c.edenBefore() >> 10)
            + " KiB used) " + (pending == null ? "before Blade asked: the heap filled faster than predicted"
            : "while GC #" + pending.request().id() + " was asked for and not yet begun"));
    }

    @Override
    public Gate gate() {
        return gate;
    }

    @Override
    public void register(GcHandler handler) {
        this.handler = handler;
    }

    @Override
    public boolean coordinated() {
        return handler != null;
    }

    @Override
    public GcOutcome startGc(long id) {
        return startGc(id, DrainSequence.NO_DEADLINE);
    }

    /** {@link #startGc(long)}, begun (and a young one's eden filled) by {@code collectByNanos} or not at all. */
    synchronized GcOutcome startGc(long id, long collectByNanos) {
        Issued issued = lastIssued;
        if (issued == null || id > issued.request().id() || id <= 0) {
            throw new IllegalArgumentException("no GC request with id " + id + " was issued");
        }
        try {
            boolean collected;
            try {
                GcOutcome forced = id < issued.request().id() ? GcOutcome.ALREADY_COLLECTED
                    : trigger.force(issued.request().generation(), collectByNanos, issued.collectionsSeen());
                if (forced == GcOutcome.ALREADY_COLLECTED) {
                    counters.alreadyCollected.increment();
                    return forced;
                }
                if (forced == GcOutcome.TOO_LATE) {
                    return forced;
                }
                collected = forced == GcOutcome.COLLECTED;
                events.awaitSeen(layout.collectionCount(), CONFIRM_TIMEOUT);
                // G1 may leave eden so small that its next collection would come unseen: take it in this window too
                for (int i = 0; collected && i < MAX_FOLLOW_UPS && watcher.nextDueUnseen(); i++) {
                    trigger.force(Generation.YOUNG);
                    events.awaitSeen(layout.collectionCount(), CONFIRM_TIMEOUT);
                    counters.followUps.increment();
                }
            } finally {
                trigger.done();
            }
            if (!collected) {
                counters.refused.increment();
                return GcOutcome.REFUSED;
            }
            return GcOutcome.COLLECTED;
        } finally {
            outstanding.compareAndSet(issued, null);
        }
    }

    @Override
    public DrainedCollection drainAndCollect(long id) {
        return drainAndCollect(id, null, DrainSequence.NO_DEADLINE);
    }

    @Override
    public DrainedCollection drainAndCollect(long id, Generation generation) {
        return drainAndCollect(id, generation, DrainSequence.NO_DEADLINE);
    }

    @Override
    public DrainedCollection drainAndCollect(long id, Generation generation, long collectByNanos) {
        GcRequest request;
        synchronized (this) {
            Issued issued = lastIssued;
            if (issued == null || issued.request().id() != id) {
                throw new IllegalArgumentException("GC request " + id + " is not the latest issued request"
                    + (issued == null ? "" : " (" + issued.request().id() + ")"));
            }
            request = issued.request();
            if (generation != null && generation != request.generation()) {
                GcRequest r = request;
                request = new GcRequest(r.id(), r.allocatedBytes(), r.remainingBytes(),
                    generation == Generation.OLD ? r.fullInstead() : r.estimatedPause(), generation, Duration.ZERO);
                Issued instead = new Issued(request, issued.collectionsSeen());
                outstanding.compareAndSet(issued, instead);
                lastIssued = instead;
            }
        }
        return drainSequence.run(request, false, collectByNanos);
    }

    @Override
    public Duration drainTimeout() {
        return options.drainTimeout();
    }

    @Override
    public Duration retryAfter() {
        Issued o = outstanding.get();
        Generation g = o == null ? Generation.YOUNG : o.request().generation();
        return pauseModel.next(g).plusNanos(drainSequence.drainEstimateNanos());
    }

    @Override
    public long pauseNanos() {
        return pauseNanos.get();
    }

    @Override
    public Runnable addPauseListener(ObjLongConsumer<Generation> listener) {
        pauseListeners.add(listener);
        return () -> pauseListeners.remove(listener);
    }

    @Override
    public long collections() {
        return layout.collectionCount();
    }

    @Override
    public long leadTimeMillis() {
        long lead = watcher.lastLeadNanos();
        return lead == Long.MAX_VALUE ? -1 : lead / 1_000_000;
    }

    @Override
    public long dueInMillis() {
        long due = watcher.lastDueNanos();
        return due == Long.MAX_VALUE ? -1 : due / 1_000_000;
    }

    @Override
    public long fullDueInMillis() {
        long due = watcher.lastFullDueNanos();
        return due == Long.MAX_VALUE ? -1 : due / 1_000_000;
    }

    @Override
    public void attachGate() {
        gateUsers.incrementAndGet();
    }

    @Override
    public void detachGate() {
        gateUsers.updateAndGet(n -> Math.max(0, n - 1));
    }

    private String mode() {
        if (!layout.schedulable()) {
            return "observe";
        }
        if (handler != null) {
            return "handler";
        }
        return gateUsers.get() > 0 ? "single-node" : "single-node, armed when a gate attaches";
    }

    @Override
    public String summary() {
        return String.format(Locale.ROOT, "Blade: collector=%s [%s], heap max=%d MiB, eden=%d MiB, mode=%s, "
                + "lead time=%d ms "
                + "(drain %d ms + margin %d ms + a sample's wait of %.1f ms; heap read every %d ms, faster near the trigger)",
            layout.kind().displayName(), layout.beanNames(), layout.maxHeap() >> 20, layout.edenCapacity() >> 20,
            mode(), (neededLeadNanos() + preparationLeadNanos()) / 1_000_000,
            drainSequence.drainEstimateNanos() / 1_000_000,
            options.margin().toMillis(), nearSampleNanos() / 1e6, options.sampleInterval().toMillis());
    }

    /** @return counters and state, JDK types only: the node MBean's attributes */
    @Override
    public Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("Collector", layout.kind().displayName());
        m.put("Mode", mode());
        m.put("GateOpen", gate.isOpen());
        m.put("InFlight", gate.inFlight());
        m.put("GateUsers", gateUsers.get());
        m.put("AllocationRate", watcher.allocationRate());
        m.put("LeadTimeMs", Math.min(watcher.lastLeadNanos(), Long.MAX_VALUE / 2) / 1_000_000);
        m.put("NeededLeadMs", (neededLeadNanos() + preparationLeadNanos()) / 1_000_000);
        m.put("PauseNanos", pauseNanos.get());
        counters.putInto(m);
        m.put("GcBeans", layout.gcBeans().stream().map(b -> b.getName()).toArray(String[]::new));
        m.put("QuietWindows", drainSequence.quietWindows());
        return m;
    }
}
