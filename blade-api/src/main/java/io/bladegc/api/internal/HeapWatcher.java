package io.bladegc.api.internal;

import io.bladegc.api.Generation;
import io.bladegc.api.collector.CollectorKind;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Reads the heap pools on its own daemon thread ({@code blade-heap-watcher}) every sample interval, and more often as
 * the point where it asks comes near (down to every {@value #NEAR_INTERVAL_NANOS} ns), tracks the allocation rate
 * over at least one interval (an average, and the recent peak, which is what the prediction uses), and predicts the
 * time to the JVM's own next collection: eden's headroom divided by the rate.
 * Eden's capacity is where the JVM really starts a young collection. On Serial and Parallel: the committed size, or
 * less when recent young collections began earlier (thread-local allocation buffers make the point vary by some MiB):
 * the lowest of the last four young collections' starting occupancy, capped by the committed size. On G1: its young
 * generation's target as the pools give it ({@link HeapLayout#edenCapacity()}), set anew at every pause (small for a
 * mixed phase, large again after it), so nothing learned from past collections stands in for it.
 * Only collections that began because eden was full teach the Serial and Parallel trigger
 * ({@link GcCause#EDEN_FULL}): one for Metaspace's threshold or a heap dump begins wherever eden happens to be. On G1
 * the room is one region less ({@link HeapLayout#edenGrain()}: the pool counts the regions retired, not the one being
 * filled) and less how far short of the planned target G1 recently began (a decaying worst case over the young
 * collections whose cycle the watcher planned). G1 also limits its target to the free regions it keeps in
 * reserve, so on a tight heap the target itself shrinks as the old generation grows: nothing to learn apart. When a
 * pause leaves eden too small to see the next collection coming (G1 after the pause that prepares a mixed phase),
 * {@link #nextDueUnseen()} tells the node to take that one in the same window.
 * When that lead time falls below what Blade needs (the node's own lead and how late the watcher's wake-ups near the
 * trigger have recently been, plus the handler's schedule lead, at most half of eden's fill time, plus the handler's
 * preparation, at most three quarters of it), it hands a {@link Prediction} to its consumer. A young one whose lead
 * needs more than eden's whole fill time, the preparation left out, says why ({@link Prediction#leaveReason()}): Blade
 * would collect an eden less than half full, doubling the collections and ageing objects twice as fast, and a grant as
 * late as the recent worst would still come after the JVM collected, so the node leaves that one to the JVM (G1's
 * mixed phase, where eden shrinks to a few regions, on a peer whose grants come late). The
 * prediction says {@link Generation#OLD} when the JVM's next young collection would turn into a full one, and
 * {@code oldSoon} for a young one when a full collection is a few young ones away, which may be run in place of this
 * young one when that suits the cluster better than waiting for it to come due ({@link PromotionRoom}).
 *
 * <p>Thread-safe: {@link #onCollection} is called from the notification thread, {@link #nextDueUnseen} from the
 * node's gc thread, the rest from the watcher thread.
 */
final class HeapWatcher {
    /** Time constant of the allocation-rate average. */
    private static final double TAU_NANOS = 50e6;
    /** Time constant with which a burst's peak rate is forgotten. */
    private static final double PEAK_TAU_NANOS = 250e6;

    /** The shortest wait between two samples, taken as the trigger comes near. */
    static final long NEAR_INTERVAL_NANOS = 1_000_000;

    /**
     * What the watcher saw when it decided a collection is coming; {@code collectionsSeen} is
     * {@link HeapLayout#collectionCount()} read before eden was, so a collection the JVM runs after the sample is
     * seen as one that came first, not taken for the baseline of a fresh eden.
     */
    record Prediction(Generation generation, long allocatedBytes, long headroomBytes, long leadNanos, boolean oldSoon,
                      String fullReason, String leaveReason, long collectionsSeen) {
    }

    private final HeapLayout layout;
    private final long intervalNanos;
    private final LongSupplier ownLeadNanos;
    private final LongSupplier scheduleLeadNanos;
    private final LongSupplier preparationLeadNanos;
    private final Consumer<Prediction> onLowLead;
    private final LongSupplier forcingEpoch;
    private final Thread thread;
    /** How late the watcher wakes from its waits near the trigger: a busy machine lets it sleep on. */
    private final DecayingMax lateWakeUps;
    private volatile boolean running = true;
    private final PromotionRoom promotion;
    /** Eden occupancy at the start of the last few young collections: where Serial and Parallel really collect. */
    private final long[] youngTriggers = new long[4];
    private int youngTriggerCount;
    /** The lowest of {@link #youngTriggers}; not kept on G1, whose pools give its target (see the class comment). */
    private volatile long youngTriggerBytes;
    /** G1's target as the last sample that planned read it, and when; consumed by the next collection. */
    private record Plan(long capacity, long nanos) {
    }

    private volatile Plan lastPlan;
    /**
     * How far short of the target it planned against G1 recently began young collections (a decaying worst case):
     * measured, not assumed. On JDK 17 one region in 30 of 31 collections of a 15 s compatibility-check run, and two
     * in the two that escaped in a single-node audit run before this was learned.
     */
    private final DecayingMax g1Shortfall;
    /**
     * {@link System#nanoTime()} less a collection's time stamps (milliseconds the JVM keeps for its GCs): the least
     * seen at a notification's arrival, which comes after the collection's end. Read and written on the notification
     * thread only.
     */
    private long gcClockOffsetNanos = Long.MAX_VALUE;
    /** Whether this JVM runs G1, whose trigger points and old-generation rule differ (see the class comment). */
    private final boolean g1;
    private volatile double bytesPerNano;
    private double peakBytesPerNano;
    private long peakNanos = System.nanoTime();
    private volatile long lastLeadNanos = Long.MAX_VALUE;
    private volatile long lastDueNanos = Long.MAX_VALUE;
    /** Eden's capacity at the last sample: where the JVM starts a young collection. */
    private volatile long lastCapacity;
    private long lastCount = -1;
    private long lastUsed;
    /** Where the rate's current measurement began: eden's occupancy then, and the time. */
    private long rateFromUsed;
    private long rateFromNanos;
    /** Rate measurements since the last collection or fill. */
    private int freshSamples;

    /**
     * @param ownLeadNanos         the lead the node itself needs to drain and collect (no coordination)
     * @param scheduleLeadNanos    what the handler adds for its coordination (the recent worst wait for a grant)
     * @param preparationLeadNanos what the handler does before it asks (a leader's hand-off)
     */
    HeapWatcher(HeapLayout layout, Duration interval, LongSupplier ownLeadNanos, LongSupplier scheduleLeadNanos,
                LongSupplier preparationLeadNanos, Consumer<Prediction> onLowLead, LongSupplier forcingEpoch) {
        this.forcingEpoch = forcingEpoch;
        this.layout = layout;
        this.intervalNanos = interval.toNanos();
        this.ownLeadNanos = ownLeadNanos;
        this.scheduleLeadNanos = scheduleLeadNanos;
        this.preparationLeadNanos = preparationLeadNanos;
        this.onLowLead = onLowLead;
        this.lateWakeUps = new DecayingMax(0, intervalNanos);
        this.g1Shortfall = new DecayingMax(0, Long.MAX_VALUE);
        this.g1 = layout.kind() == CollectorKind.G1;
        this.promotion = new PromotionRoom(g1, PromotionAverage.ofThisJvm());
        this.thread = new Thread(this::run, "blade-heap-watcher");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() {
        running = false;
        LockSupport.unpark(thread);
    }

    /** @return the allocation rate in bytes per second */
    long allocationRate() {
        return Math.round(bytesPerNano * 1e9);
    }

    /** @return eden's capacity at the last sample, where the JVM starts a young collection, in bytes; 0 unknown */
    long lastCapacity() {
        return lastCapacity;
    }

    /** @return the latest predicted time to the JVM's own next collection, in nanoseconds */
    long lastLeadNanos() {
        return lastLeadNanos;
    }

    /**
     * @return the latest expected time to the JVM's own next collection at the average allocation rate, in
     *     nanoseconds: where {@link #lastLeadNanos()} plans for the recent peak (an escape costs a whole pause), this
     *     is the best single guess, what other nodes plan around
     */
    long lastDueNanos() {
        return lastDueNanos;
    }

    /**
     * @return the latest expected time to the node's next full collection, in nanoseconds, each young collection
     *     before it a whole eden at the average allocation rate after the next one comes due ({@link #lastDueNanos()}):
     *     see {@link PromotionRoom#fullDueNanos(long, long, double)}. Reads the old generation's pool: for the
     *     heartbeat's caller, not for every sample.
     */
    long lastFullDueNanos() {
        double rate = bytesPerNano;
        if (rate <= 0) {
            return Long.MAX_VALUE;
        }
        return promotion.fullDueNanos(lastDueNanos, layout.oldFree() - layout.survivorCommitted(),
            lastCapacity / rate);
    }

    /**
     * Whether the JVM's next young collection would come before this watcher could ask for it, read right after a
     * forced one while the node is still drained: after a collection the watcher measures the rate again over two
     * intervals before it predicts, and G1 may leave eden a target of a region or two (the pause that prepares a
     * mixed phase sets one, and the mixed pause comes some milliseconds later). Then the caller collects again in the
     * same quiet window. Reads the eden and survivor pools.
     *
     * @return whether eden's room, at the rate measured before the collection, lasts less than the node's own lead
     *     plus two sample intervals; its coordination's lead is left out: a next collection the node can see coming
     *     is asked for as any other (or left to the JVM when no grant could come in time), not forced here, where it
     *     would hold the slot and collect a nearly empty eden
     */
    boolean nextDueUnseen() {
        double r = bytesPerNano;
        if (r <= 0) {
            return false;
        }
        long lead = ownLeadNanos.getAsLong() + lateWakeUps.value() + 2 * intervalNanos;
        return headroom(capacity(), layout.edenUsage().getUsed()) < r * lead;
    }

    void onCollection(GcEvents.Collection c) {
        if (c.reclaims() && c.generation() == Generation.OLD) {
            promotion.onOld();
        } else if (c.reclaims()) {
            if (!g1 && c.kind() == GcCause.EDEN_FULL && c.edenBefore() > 0) {
                learnTrigger(c.edenBefore());
            }
            Plan plan = lastPlan;
            lastPlan = null;
            gcClockOffsetNanos = Math.min(gcClockOffsetNanos, System.nanoTime() - c.endMs() * 1_000_000);
            // the plan must be this cycle's: from before the collection began (a sample of the next cycle comes at
            // least a rate interval after it; 2 ms for the millisecond time stamps)
            if (g1 && plan != null && c.kind() == GcCause.EDEN_FULL
                && plan.nanos() < gcClockOffsetNanos + c.startMs() * 1_000_000 + 2_000_000) {
                g1Shortfall.observe(Math.max(0, plan.capacity() - c.edenBefore()));
            }
            promotion.onYoung(c.promoted());
        }
    }

    /** Keeps the lowest of the last few trigger points (TLAB waste makes the real one vary by some MiB). */
    private synchronized void learnTrigger(long edenBefore) {
        youngTriggers[youngTriggerCount++ % youngTriggers.length] = edenBefore;
        youngTriggerBytes = lowest(youngTriggers, youngTriggerCount);
    }

    private static long lowest(long[] triggers, int count) {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < Math.min(count, triggers.length); i++) {
            min = Math.min(min, triggers[i]);
        }
        return min;
    }

    private void run() {
        while (running) {
            long park = intervalNanos;
            try {
                park = sample();
            } catch (RuntimeException e) {
                System.getLogger("io.bladegc").log(System.Logger.Level.WARNING, "Blade heap watcher failed", e);
            }
            long from = System.nanoTime();
            LockSupport.parkNanos(this, park);
            if (park < intervalNanos) {
                // near the trigger, a wake-up late by this much is that much allocation unseen
                lateWakeUps.observe(System.nanoTime() - from - park);
            }
        }
    }

    /**
     * @param leadNanos   the latest predicted lead, {@link Long#MAX_VALUE} when unknown
     * @param neededNanos the lead at which the watcher asks
     * @param interval    the sample interval
     * @return how long to wait before the next sample: the interval while the trigger is far, half the time still to
     *     go once it comes near, but never less than {@link #nearInterval}: the watcher sees the crossing within that
     *     of when it happens instead of within a whole interval, without reading the pools every millisecond
     */
    static long nextSampleNanos(long leadNanos, long neededNanos, long interval) {
        if (leadNanos == Long.MAX_VALUE) {
            return interval;
        }
        long toGo = (leadNanos - neededNanos) / 2;
        return Math.max(nearInterval(interval), Math.min(interval, toGo));
    }

    /**
     * @param interval the sample interval
     * @return the shortest wait between two samples: {@value #NEAR_INTERVAL_NANOS} ns, or the interval when shorter
     */
    static long nearInterval(long interval) {
        return Math.min(interval, NEAR_INTERVAL_NANOS);
    }

    /**
     * @param fillNanos the time eden takes to fill at the rate planned for
     * @param own       the lead the node needs by itself (late wake-ups included)
     * @param schedule  the lead its coordination adds (the recent worst wait for a grant)
     * @return why a young collection is better left to the JVM, or {@code null} when it can be planned: the node and
     *     its coordination need no more than eden's whole fill time, or there is no coordination (a single node, whose
     *     own lead is held to half eden's fill: it closes its gate as it asks, and sheds). Beyond, the watcher would ask
     *     for an eden not yet half full and the grant could still come after the JVM collected. A preparation (a
     *     leader's hand-off) does not count here: it hides a leader's pause, worth an early collection, and is held to
     *     three quarters of the fill time where the watcher asks
     */
    static String leaveReason(long fillNanos, long own, long schedule) {
        if (schedule == 0 || own + schedule <= fillNanos) {
            return null;
        }
        return String.format(Locale.ROOT, "eden fills in %d ms, and a planned collection needs %d ms (the node %d ms,"
            + " waiting for a grant %d ms, the longest of the recent waits): more than eden lasts",
            fillNanos / 1_000_000, (own + schedule) / 1_000_000, own / 1_000_000, schedule / 1_000_000);
    }

    /** @return where the JVM starts its next young collection, in bytes of eden (see the class comment), 0 unknown */
    private long capacity() {
        long trigger = youngTriggerBytes; // never learned on G1
        long target = layout.edenCapacity();
        return trigger > 0 ? Math.min(trigger, target) : target;
    }

    /**
     * @return eden's room before that point, in bytes, less what the watcher keeps in hand on G1: one region (the pool
     *     counts regions retired; one is being filled) and G1's recent shortfall
     */
    private long headroom(long capacity, long used) {
        return Math.max(0, capacity - used - layout.edenGrain() - g1Shortfall.value());
    }

    /** @return how long to wait before the next sample */
    private long sample() {
        long epoch = forcingEpoch.getAsLong();
        long now = System.nanoTime();
        long count = layout.collectionCount();
        long used = layout.edenUsage().getUsed();
        boolean valid = (epoch & 1) == 0 && epoch == forcingEpoch.getAsLong() // not Blade's own eden fill
            && count == lastCount && used >= lastUsed; // no collection since the last sample
        lastCount = count;
        lastUsed = used;
        if (!valid) {
            // after a collection or a fill, predict only from a rate measured again; until then the due time is
            // unknown (the one from before the collection would tell the coordinator this node is due at once)
            freshSamples = 0;
            rateFromNanos = now;
            rateFromUsed = used;
            lastLeadNanos = Long.MAX_VALUE;
            lastDueNanos = Long.MAX_VALUE;
            return intervalNanos;
        }
        long dt = now - rateFromNanos;
        if (dt >= intervalNanos) {
            // the rate over at least one interval: samples taken faster near the trigger would each see a handful
            // of requests' allocations and make the peak a burst of noise
            double rate = (double) (used - rateFromUsed) / dt;
            double alpha = 1 - Math.exp(-dt / TAU_NANOS);
            bytesPerNano += alpha * (rate - bytesPerNano);
            peakBytesPerNano = Math.max(rate, peakBytesPerNano * Math.exp(-(now - peakNanos) / PEAK_TAU_NANOS));
            peakNanos = now;
            rateFromNanos = now;
            rateFromUsed = used;
            freshSamples++;
        }

        long capacity = capacity();
        // plan for the recent burst, not the average: requests allocate in bursts and an escape costs a full pause
        double r = Math.max(bytesPerNano, peakBytesPerNano);
        if (capacity <= 0 || r <= 0 || freshSamples == 0) {
            lastLeadNanos = Long.MAX_VALUE;
            lastDueNanos = Long.MAX_VALUE;
            return intervalNanos;
        }
        lastCapacity = capacity;
        lastPlan = new Plan(capacity, now);
        long headroom = headroom(capacity, used);
        long lead = (long) (headroom / r);
        lastLeadNanos = lead;
        lastDueNanos = bytesPerNano > 0 ? (long) Math.min(Long.MAX_VALUE, headroom / bytesPerNano) : Long.MAX_VALUE;
        // never ask before eden is half full: with a lead time longer than that (a slow drain, a long queue at the
        // coordinator) the node would collect a nearly empty eden again and again; a preparation (a leader's hand-off)
        // comes on top, once, but never before a quarter of eden is full
        long fillNanos = (long) (capacity / r);
        long own = ownLeadNanos.getAsLong() + lateWakeUps.value();
        long schedule = scheduleLeadNanos.getAsLong();
        long preparation = preparationLeadNanos.getAsLong();
        long needed = Math.min(Math.min(own + schedule, fillNanos / 2) + preparation, fillNanos / 4 * 3);
        if (lead <= needed && freshSamples >= 2) {
            long oldFree = layout.oldFree();
            long survivor = layout.survivorCommitted();
            String why = promotion.fullReason(oldFree, survivor);
            boolean oldFull = why != null;
            // a full collection is worth hiding however early: its pause is many young ones'
            String leave = oldFull ? null : leaveReason(fillNanos, own, schedule);
            onLowLead.accept(new Prediction(oldFull ? Generation.OLD : Generation.YOUNG, used, headroom, lead,
                !oldFull && promotion.fullSoon(oldFree, survivor), why, leave, count));
        }
        return nextSampleNanos(lead, needed, intervalNanos);
    }
}
