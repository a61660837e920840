package io.bladegc.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The BLADE API in one JVM: the upcall comes before the JVM's own collection, and startGc is idempotent. */
class UpcallTest {
    private static volatile Object sink;

    @AfterEach
    void stop() {
        Blade.stopNode();
    }

    @Test
    void aDeferredRequestIsCollectedOnceAndThenReportsTheCollectionHappened() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        GcRequest request = awaitUpcall(node);

        GcOutcome first = node.startGc(request.id());
        assertThat(first).isIn(GcOutcome.COLLECTED, GcOutcome.ALREADY_COLLECTED);
        assertThat(node.startGc(request.id())).as("idempotent").isEqualTo(GcOutcome.ALREADY_COLLECTED);
        long unknown = request.id() + 1000;
        assertThatThrownBy(() -> node.startGc(unknown)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(Long.toString(unknown));
    }

    @Test
    void drainAndCollectHoldsNewRequestsOutWaitsForTheOneInsideAndReopens() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.builder().drainTimeout(java.time.Duration.ofSeconds(5)).build());
        GcRequest request = awaitUpcall(node);
        Gate gate = node.gate();
        assertThat(gate.tryEnter()).isTrue(); // a request inside, finishing 100 ms after the drain begins
        java.util.concurrent.atomic.AtomicBoolean admittedWhileDraining = new java.util.concurrent.atomic.AtomicBoolean();
        Thread trailer = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            admittedWhileDraining.set(gate.tryEnter());
            gate.exit();
        });
        trailer.start();
        DrainedCollection d = node.drainAndCollect(request.id());
        trailer.join();
        assertThat(admittedWhileDraining).as("a new request while draining").isFalse();
        assertThat(d.drained()).isTrue();
        assertThat(d.trailers()).isGreaterThanOrEqualTo(java.time.Duration.ofMillis(90));
        assertThat(d.outcome()).isIn(GcOutcome.COLLECTED, GcOutcome.ALREADY_COLLECTED);
        assertThat(gate.isOpen()).isTrue();
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void aDrainEndingPastItsDeadlineCollectsNothingAndReopens() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        GcRequest request = awaitUpcall(node);
        long before = node.collections();
        DrainedCollection d = node.drainAndCollect(request.id(), Generation.YOUNG, System.nanoTime() - 1);
        assertThat(d.outcome()).isEqualTo(GcOutcome.TOO_LATE);
        assertThat(d.gc()).isZero();
        assertThat(node.collections()).as("collections by the JVM").isEqualTo(before);
        assertThat(node.gate().isOpen()).isTrue();
        DrainedCollection inTime = node.drainAndCollect(request.id(), Generation.YOUNG, System.nanoTime() + 60_000_000_000L);
        assertThat(inTime.outcome()).as("nothing allocates after the upcall").isEqualTo(GcOutcome.COLLECTED);
    }

    @Test
    void aYoungRequestCanBeCollectedAsAFullCollectionInItsPlace() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        GcRequest request = awaitUpcall(node);
        assertThat(request.generation()).isEqualTo(Generation.YOUNG);
        long fullBefore = fullCollections();
        DrainedCollection d = node.drainAndCollect(request.id(), Generation.OLD);
        assertThat(d.outcome()).as("nothing allocates after the upcall").isEqualTo(GcOutcome.COLLECTED);
        assertThat(fullCollections()).as("the old generation's collector ran").isGreaterThan(fullBefore);
        assertThatThrownBy(() -> node.drainAndCollect(request.id() + 1, Generation.OLD))
            .isInstanceOf(IllegalArgumentException.class);
    }

    /** @return collections by this JVM's old-generation (full) collector */
    private static long fullCollections() {
        long n = 0;
        for (java.lang.management.GarbageCollectorMXBean b
            : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            String name = b.getName();
            if (name.contains("Old") || name.contains("MarkSweep")) {
                n += b.getCollectionCount();
            }
        }
        return n;
    }

    @Test
    void anExplicitRequestIsAFullCollectionPlannedThroughTheHandlerAndLaterCallsJoinIt() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        assertThat(node.requestCollection()).as("nothing to plan with: no gate attached, no handler").isFalse();

        BlockingQueue<GcRequest> requests = new LinkedBlockingQueue<>();
        node.register(deferring(requests::add, () -> 0));
        assertThat(node.requestCollection()).isTrue();
        GcRequest request = requests.poll(5, TimeUnit.SECONDS);
        assertThat(request).isNotNull();
        assertThat(request.generation()).isEqualTo(Generation.OLD);
        assertThat(node.requestCollection()).as("joins the outstanding request").isTrue();
        assertThat(requests.poll(200, TimeUnit.MILLISECONDS)).as("no second upcall while one is outstanding")
            .isNull();

        assertThat(node.startGc(request.id())).isIn(GcOutcome.COLLECTED, GcOutcome.ALREADY_COLLECTED);
        assertThat(node.requestCollection()).isTrue();
        GcRequest next = requests.poll(5, TimeUnit.SECONDS);
        assertThat(next).as("a new request once the first was collected").isNotNull();
        assertThat(next.id()).isGreaterThan(request.id());
    }

    @Test
    void anEarlyCollectionIsAskedForOnlyOnceEdenIsHalfFullAndThenJoinsTheRequestOut() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        assertThat(node.collectEarly()).as("nothing to plan with: no gate attached, no handler").isFalse();
        BlockingQueue<GcRequest> requests = new LinkedBlockingQueue<>();
        node.register(deferring(requests::add, () -> 0));
        GcRequest first = allocateUntil(requests); // the watcher has measured eden and the rate
        assertThat(node.startGc(first.id())).isIn(GcOutcome.COLLECTED, GcOutcome.ALREADY_COLLECTED);
        assertThat(node.collectEarly()).as("eden just collected: less than half full").isFalse();
        boolean asked = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!asked && requests.isEmpty() && System.nanoTime() < deadline) {
            for (int i = 0; i < 64; i++) {
                sink = new byte[1024];
            }
            Thread.sleep(1);
            asked = node.collectEarly();
        }
        assertThat(asked).as("asked at half full, long before the watcher's own lead came near").isTrue();
        GcRequest early = requests.poll(5, TimeUnit.SECONDS);
        assertThat(early).isNotNull();
        assertThat(early.generation()).isEqualTo(Generation.YOUNG);
        assertThat(node.collectEarly()).as("one request out: nothing more to ask").isFalse();
        assertThat(node.startGc(early.id())).isIn(GcOutcome.COLLECTED, GcOutcome.ALREADY_COLLECTED);
    }

    @Test
    void aHandlersScheduleLeadIsAddedToTheLeadTimeTheNodeNeeds() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        long before = neededLeadMs();
        node.register(deferring(r -> { }, () -> TimeUnit.MILLISECONDS.toNanos(250)));
        assertThat(neededLeadMs()).isEqualTo(before + 250);
        node.register(deferring(r -> { }, () -> {
            throw new IllegalStateException("broken handler");
        }));
        assertThat(neededLeadMs()).as("a handler that fails to say adds nothing").isEqualTo(before);
    }

    @Test
    void aLeadLongerThanHalfOfEdensFillLeavesTheYoungCollectionToTheJvmInsteadOfAskingForAHalfEmptyEden()
        throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        BlockingQueue<GcRequest> requests = new LinkedBlockingQueue<>();
        node.register(deferring(requests::add, () -> TimeUnit.HOURS.toNanos(1)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (nodeStat("LeftToJvm") < 2 && System.nanoTime() < deadline) {
            for (int i = 0; i < 64; i++) {
                sink = new byte[1024]; // ~64 KiB per millisecond, steady like a service
            }
            Thread.sleep(0, 500_000);
        }
        assertThat(nodeStat("LeftToJvm")).as("young collections left to the JVM within 30 s").isGreaterThanOrEqualTo(2);
        assertThat(requests).as("no upcall: every one would have collected eden less than half full").isEmpty();
        assertThat(nodeStat("Escaped")).as("a collection left to the JVM is not an escape").isZero();
    }

    @Test
    void aHandlerThatKeepsItsCollectionsPlannedIsAskedAtHalfEdenWhenItsLeadOutlastsEden() throws Exception {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        BlockingQueue<GcRequest> requests = new LinkedBlockingQueue<>();
        long leftBefore = nodeStat("LeftToJvm");
        // as a Raft peer's: its peers' edens fill in step with its own
        node.register(deferring(requests::add, () -> TimeUnit.HOURS.toNanos(1), false));
        GcRequest request = allocateUntil(requests);
        assertThat(request).as("an upcall within 30 s").isNotNull();
        assertThat(request.remainingBytes()).as("asked for with about half of eden still free, not at once: %s",
            request).isGreaterThan(0).isLessThan(request.allocatedBytes() * 2);
        assertThat(nodeStat("LeftToJvm") - leftBefore).as("collections left to the JVM").isZero();
    }

    /** @return a handler that hands each request to {@code sink}, defers, and needs {@code lead} ns before it drains */
    private static GcHandler deferring(java.util.function.Consumer<GcRequest> sink,
                                       java.util.function.LongSupplier lead) {
        return deferring(sink, lead, true);
    }

    /** @return {@link #deferring(java.util.function.Consumer, java.util.function.LongSupplier)}, saying {@code leaves}
     *     of collections it cannot plan ({@link GcHandler#leavesUnplannableToJvm()}) */
    private static GcHandler deferring(java.util.function.Consumer<GcRequest> sink,
                                       java.util.function.LongSupplier lead, boolean leaves) {
        return new GcHandler() {
            @Override
            public GcDecision onGcRequest(GcRequest request) {
                sink.accept(request);
                return GcDecision.DEFER;
            }

            @Override
            public long scheduleLeadNanos() {
                return lead.getAsLong();
            }

            @Override
            public boolean leavesUnplannableToJvm() {
                return leaves;
            }
        };
    }

    private static long neededLeadMs() throws Exception {
        return nodeStat("NeededLeadMs");
    }

    private static long nodeStat(String attribute) throws Exception {
        return ((Number) java.lang.management.ManagementFactory.getPlatformMBeanServer()
            .getAttribute(new javax.management.ObjectName("io.bladegc:type=Node"), attribute)).longValue();
    }

    /** Registers a deferring handler and allocates steadily until the upcall comes. */
    private static GcRequest awaitUpcall(BladeNode node) throws InterruptedException {
        BlockingQueue<GcRequest> requests = new LinkedBlockingQueue<>();
        node.register(r -> {
            requests.add(r);
            return GcDecision.DEFER;
        });
        return allocateUntil(requests);
    }

    /** Allocates steadily until an upcall shows up in {@code requests}. */
    private static GcRequest allocateUntil(BlockingQueue<GcRequest> requests) throws InterruptedException {
        GcRequest request = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (request == null && System.nanoTime() < deadline) {
            for (int i = 0; i < 64; i++) {
                sink = new byte[1024]; // ~64 KiB per millisecond, steady like a service
            }
            Thread.sleep(0, 500_000);
            request = requests.poll();
        }
        assertThat(request).as("an upcall within 30 s of steady allocation").isNotNull();
        assertThat(request.generation()).isNotNull();
        assertThat(request.estimatedPause()).isPositive();
        assertThat(request.allocatedBytes()).isPositive();
        return request;
    }
}
