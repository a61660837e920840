package io.bladegc.agent.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.agent.coordination.FakeCoordinator.Call;
import io.bladegc.agent.coordination.FakeCoordinator.Reply;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import io.bladegc.api.grant.GrantHolder;
import io.bladegc.api.grant.Preparation;
import io.bladegc.api.grant.Prepared;
import io.bladegc.api.grant.RecentPauses;
import io.bladegc.api.testing.FakeNode;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinated mode's {@link GrantHolder} over a {@link CoordinatorPort}, with its {@link Membership} and
 * {@link CoordinatorClient}, against a fake coordinator on loopback, driving a fake node: the upcalls are made by
 * hand, the JVM's "own collections" are a counter. The
 * coordinator timeout is generous (2 s) so that a loaded machine does not fail open by accident; the black-hole test
 * sets its own short one. Time bounds are loose: they tell "waited for the timeout" from "did not wait".
 */
class CoordinatedHolderTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration SHORT_TIMEOUT = Duration.ofMillis(300);
    private static final Duration HEARTBEAT = Duration.ofMillis(100);

    private FakeCoordinator fake;
    private final FakeNode node = new FakeNode();
    private final LogLines log = new LogLines();
    private final CoordinationCounters counters = new CoordinationCounters();
    private CoordinatorClient client;
    private Membership membership;
    private GrantHolder handler;
    private BladeOptions options;
    private Preparation preparation = Preparation.NONE;

    @BeforeEach
    void fake() throws IOException {
        fake = FakeCoordinator.start();
        node.collections.set(100); // the JVM's own collections so far
        node.lead.set(50);
    }

    @AfterEach
    void stop() {
        if (handler != null) {
            handler.close();
            membership.close();
            client.close();
        }
        fake.close();
    }

    private BladeOptions.Builder options(URI coordinator) {
        return BladeOptions.builder().coordinator(coordinator).nodeId("n1").coordinatorTimeout(TIMEOUT)
            .drainTimeout(Duration.ofMillis(100));
    }

    /** Starts membership and handler; waits for the join when the coordinator is up. */
    private void start(BladeOptions options, boolean awaitJoin) {
        client = new CoordinatorClient(options.coordinators(), options.nodeId(), options.token(),
            options.coordinatorTimeout(), counters, log);
        membership = new Membership(client, options.nodeId(), HEARTBEAT, () -> new Heartbeat(node.lead.get(), -1),
            () -> { }, counters, log);
        this.options = options;
        handler = new GrantHolder(node, new CoordinatorPort(client, membership), preparation,
            CoordinatedMode.settings(options), CoordinatedMode.THREAD_NAME, "", log);
        handler.start();
        membership.start();
        if (awaitJoin) {
            await().atMost(Duration.ofSeconds(5)).until(membership::isUp);
        }
    }

    private void start() {
        start(options(fake.uri()).build(), true);
    }

    private static GcRequest request(long id) {
        return new GcRequest(id, 8 << 20, 64 << 10, Duration.ofMillis(4), Generation.YOUNG);
    }

    private void upcall(long id) {
        assertThat(handler.onGcRequest(request(id))).isEqualTo(GcDecision.DEFER);
    }

    private Map<String, Object> stats() {
        return CoordinatedMode.stats(options, client, membership, counters, handler);
    }

    private long stat(String name) {
        return (Long) stats().get(name);
    }

    private List<String> events() {
        return log.matching("Blade GC #");
    }

    @Test
    void aFullCollectionOfferedRunsInPlaceOfTheYoungOneOnlyWhenTheGrantSaysSo() {
        start();
        await().atMost(Duration.ofSeconds(5)).until(() -> !fake.calls("heartbeat").isEmpty());
        assertThat(fake.calls("heartbeat").get(0).longField("dueInMillis")).as("the watcher's lead time")
            .isEqualTo(50);
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"GRANTED\",\"epoch\":7,\"remainingMillis\":9000,"
            + "\"full\":true}"));
        GcRequest offering = new GcRequest(1, 8 << 20, 64 << 10, Duration.ofMillis(4), Generation.YOUNG,
            Duration.ofMillis(300));
        assertThat(handler.onGcRequest(offering)).isEqualTo(GcDecision.DEFER);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(fake.calls("acquire").get(0).longField("fullPauseMillis")).isEqualTo(300);
        assertThat(node.drains).extracting(FakeNode.Drain::generation).containsExactly(Generation.OLD);
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).startsWith("INFO Blade GC #1 OLD granted (epoch 7; in place of the young "
            + "collection asked for)");
        assertThat(stat("FullsInstead")).isEqualTo(1);

        fake.on("acquire", c -> Reply.granted(8, 9_000)); // the ledger did not take the offer
        assertThat(handler.onGcRequest(new GcRequest(2, 8 << 20, 64 << 10, Duration.ofMillis(4), Generation.YOUNG,
            Duration.ofMillis(300)))).isEqualTo(GcDecision.DEFER);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 2);
        assertThat(node.drains).extracting(FakeNode.Drain::generation).containsExactly(Generation.OLD,
            Generation.YOUNG);
        assertThat(stat("FullsInstead")).isEqualTo(1);
    }

    @Test
    void grantedPathDrainsAndCollectsThenReleasesWithTheGrantsEpoch() {
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);

        Call acquire = fake.calls("acquire").get(0);
        assertThat(acquire.node()).isEqualTo("n1");
        assertThat(acquire.longField("gcId")).isEqualTo(1);
        assertThat(acquire.longField("leadMillis")).as("the watcher's lead time").isEqualTo(50);
        assertThat(acquire.longField("waitMillis")).as("bounded by the lead time").isEqualTo(50);
        assertThat(acquire.contentType()).isEqualTo("application/json");
        Call release = fake.calls("release").get(0);
        assertThat(release.longField("epoch")).isEqualTo(7);
        assertThat(release.longField("pauseMillis")).as("the pause measured by the node").isEqualTo(3);
        assertThat(node.drainedIds()).containsExactly(1L);
        long drainedAt = node.drains.get(0).nanos();
        assertThat(drainedAt).isBetween(acquire.nanos(), release.nanos());
        assertThat(fake.calls("cancel")).isEmpty();
        assertThat(stat("Grants")).isEqualTo(1);
        assertThat(stat("FailOpens")).isZero();
        await().until(() -> !events().isEmpty());
        assertThat(events()).singleElement().asString().matches("INFO Blade GC #1 YOUNG granted \\(epoch 7\\): "
            + "T_schedule \\d+\\.\\d ms, T_trailers 1\\.0 ms, T_gc 3\\.0 ms \\(COLLECTED\\), T_notify \\d+\\.\\d ms; "
            + "released");
        assertThat(stats()).containsEntry("Grants", 1L).containsEntry("CoordinatorUp", true)
            .containsEntry("NodeId", "n1").containsEntry("TrailersMsSum", 1.0).containsEntry("GcMsSum", 3.0)
            .containsEntry("ScheduleCount", 1L).containsEntry("TrailersCount", 1L).containsEntry("GcCount", 1L)
            .containsEntry("NotifyCount", 1L).containsEntry("Failovers", 0L)
            .containsEntry("Coordinator", fake.uri().toString())
            .containsEntry("CoordinatorReplica", fake.uri().toString());
    }

    @Test
    void whenTheLeaderChangesTheNodeCoordinatesThroughTheNewOneWithoutJoiningAgainOrFailingOpen() throws IOException {
        try (FakeCoordinator second = FakeCoordinator.start()) {
            start(options(null).coordinators(List.of(fake.uri(), second.uri())).build(), true);
            assertThat(fake.calls("join")).hasSize(1);
            fake.leader(false); // the leader moved to the second replica
            upcall(1);
            await().atMost(Duration.ofSeconds(5)).until(() -> second.calls("release").size() == 1);

            assertThat(fake.calls("acquire")).as("answered NOT_LEADER, unless a heartbeat found the leader first")
                .hasSizeLessThanOrEqualTo(1);
            assertThat(second.calls("acquire")).hasSize(1);
            assertThat(second.calls("release").get(0).longField("epoch")).isEqualTo(7);
            assertThat(second.calls("join")).as("the ledger is shared: no join at the new leader").isEmpty();
            assertThat(node.drainedIds()).containsExactly(1L);
            assertThat(stat("FailOpens")).isZero();
            assertThat(counters.rejoins.sum()).isZero();
            assertThat(membership.isUp()).isTrue();
            assertThat(stats()).containsEntry("Failovers", 1L).containsEntry("Grants", 1L)
                .containsEntry("Coordinator", fake.uri() + "|" + second.uri())
                .containsEntry("CoordinatorReplica", second.uri().toString());
            assertThat(log.matching("now talks to coordinator replica " + second.uri())).hasSize(1);
        }
    }

    @Test
    void queuedThenGrantedAsksAgainUntilGranted() {
        AtomicInteger n = new AtomicInteger();
        fake.on("acquire", c -> n.incrementAndGet() <= 2 ? Reply.queued(3 - n.get()).after(c.longField("waitMillis"))
            : Reply.granted(42, 10_000));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);

        assertThat(fake.calls("acquire")).hasSize(3).allSatisfy(c -> assertThat(c.longField("gcId")).isEqualTo(1));
        assertThat(fake.calls("release").get(0).longField("epoch")).isEqualTo(42);
        assertThat(node.drainedIds()).containsExactly(1L);
        assertThat(stat("QueuedWaits")).as("one request waited, whatever the polls").isEqualTo(1);
        assertThat(stat("Grants")).isEqualTo(1);
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).contains("granted (epoch 42, after 2 queued polls)");
    }

    @Test
    void coordinatorDownFailsOpenAtOnceAndCollectsLocally() {
        start();
        fake.stop(); // connection refused from now on
        long t0 = System.nanoTime();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.drains.isEmpty());

        assertThat(Duration.ofNanos(node.drains.get(0).nanos() - t0)).as("refused: no need to wait the timeout")
            .isLessThan(TIMEOUT.dividedBy(2));
        assertThat(stat("FailOpens")).isEqualTo(1);
        assertThat(membership.isUp()).isFalse();
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).startsWith("INFO Blade GC #1 YOUNG fail-open (coordinator unreachable: ")
            .contains("T_gc 3.0 ms (COLLECTED)", "collected locally (single-node)");
        assertThat(log.matching("is unavailable")).as("the transition, logged once").hasSize(1);

        // while down, the next request does not even try
        upcall(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> node.drains.size() == 2);
        assertThat(stat("FailOpens")).isEqualTo(2);
        assertThat(log.matching("is unavailable")).hasSize(1);
    }

    @Test
    void unreachableFromTheStartNeverDelaysAndCollectsLocally() throws IOException {
        start(options(URI.create("http://127.0.0.1:" + FreePorts.one())).build(), false);
        await().atMost(Duration.ofSeconds(5)).until(() -> !log.matching("is unavailable").isEmpty());
        long t0 = System.nanoTime();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.drains.isEmpty());
        assertThat(Duration.ofNanos(node.drains.get(0).nanos() - t0)).isLessThan(TIMEOUT.dividedBy(2));
        assertThat(stat("FailOpens")).isEqualTo(1);
    }

    @Test
    void blackHoledCoordinatorFailsOpenWithinTheCoordinatorTimeout() {
        fake.on("acquire", c -> Reply.blackHoled());
        start(options(fake.uri()).coordinatorTimeout(SHORT_TIMEOUT).build(), true);
        long t0 = System.nanoTime();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.drains.isEmpty());

        Duration waited = Duration.ofNanos(node.drains.get(0).nanos() - t0);
        assertThat(waited).as("it waited for the answer, the timeout (+ grace, + slack for a loaded machine)")
            .isGreaterThanOrEqualTo(SHORT_TIMEOUT.minusMillis(50))
            .isLessThan(SHORT_TIMEOUT.plus(CoordinatorClient.GRACE).plusMillis(700));
        assertThat(stat("FailOpens")).isEqualTo(1);
        assertThat(log.matching("is unavailable (timeout: ")).hasSize(1);
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).contains("fail-open (coordinator timeout: ", "collected locally");
        await("a cancel, in case the acquire is answered after all").atMost(Duration.ofSeconds(2))
            .until(() -> fake.calls("cancel").size() == 1);
        assertThat(fake.calls("cancel").get(0).longField("gcId")).isEqualTo(1);
    }

    @Test
    void coordinatorBackMeansTheNodeJoinsAgainByItself() throws IOException {
        start();
        fake.stop();
        await().atMost(Duration.ofSeconds(5)).until(() -> !membership.isUp());
        int joinsBefore = fake.calls("join").size();
        fake.restart();
        await().atMost(Duration.ofSeconds(5)).until(membership::isUp);

        assertThat(fake.calls("join")).hasSize(joinsBefore + 1);
        assertThat(counters.rejoins.sum()).isEqualTo(1);
        assertThat(log.matching("joined coordinator " + fake.uri() + " again")).hasSize(1);
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(stat("Grants")).isEqualTo(1);
        assertThat(stat("FailOpens")).isZero();
    }

    @Test
    void aHeartbeatAnswered404JoinsAgain() {
        AtomicInteger heartbeats = new AtomicInteger();
        fake.on("heartbeat", c -> heartbeats.incrementAndGet() == 2
            ? Reply.status(404, "{\"message\":\"node n1 is not a member; join first\"}") : Reply.ok());
        start();
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("join").size() == 2);
        assertThat(counters.rejoins.sum()).isEqualTo(1);
        assertThat(membership.isUp()).isTrue();
        assertThat(log.matching("does not know node n1")).hasSize(1);
    }

    @Test
    void anAcquireAnswered404JoinsAndAsksAgain() {
        AtomicInteger n = new AtomicInteger();
        fake.on("acquire", c -> n.incrementAndGet() == 1 ? Reply.status(404, "{\"message\":\"unknown node\"}")
            : Reply.granted(9, 10_000));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(fake.calls("join")).hasSizeGreaterThanOrEqualTo(2);
        assertThat(fake.calls("acquire")).hasSize(2);
        assertThat(fake.calls("release").get(0).longField("epoch")).isEqualTo(9);
        assertThat(stat("FailOpens")).isZero();
    }

    @Test
    void aStaleEpochOnReleaseIsLoggedAndCountedNotRetried() throws InterruptedException {
        fake.on("release", c -> Reply.status(409, "{\"message\":\"node n1 holds no grant with epoch 7\"}"));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> stat("StaleReleases") == 1);
        Thread.sleep(300);
        assertThat(fake.calls("release")).hasSize(1);
        assertThat(node.drainedIds()).containsExactly(1L);
        assertThat(membership.isUp()).as("a 409 is an answer: the coordinator is up").isTrue();
        await().until(() -> !events().isEmpty());
        assertThat(events()).singleElement().asString().startsWith("WARNING Blade GC #1 YOUNG granted (epoch 7)")
            .contains("T_notify -", "release refused as stale", "holds no grant with epoch 7", "not retried");
    }

    @Test
    void theTokenIsSentAsBearerOnEveryCallAndNeverLogged() {
        start(options(fake.uri()).token("s3cr3t-t0ken").build(), true);
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(fake.calls()).extracting(Call::op).contains("join", "acquire", "release");
        assertThat(fake.calls()).allSatisfy(c -> assertThat(c.authorization()).isEqualTo("Bearer s3cr3t-t0ken"));
        assertThat(log.lines).noneMatch(l -> l.contains("s3cr3t"));
        assertThat(stats().toString()).doesNotContain("s3cr3t");
    }

    @Test
    void withoutATokenThereIsNoAuthorizationHeader() {
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(fake.calls()).allSatisfy(c -> assertThat(c.authorization()).isNull());
    }

    @Test
    void whenTheJvmCollectsBeforeTheGrantTheRequestIsCancelledAtOnce() {
        // the first answer at once, then long polls of a second (half the timeout: the lead time is long)
        AtomicInteger n = new AtomicInteger();
        fake.on("acquire", c -> Reply.queued(1).after(n.incrementAndGet() == 1 ? 0 : c.longField("waitMillis")));
        start();
        node.lead.set(10_000);
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("acquire").size() >= 2);
        long collectedAt = System.nanoTime();
        node.collections.incrementAndGet(); // the JVM collected on its own
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("cancel").size() == 1);

        Call cancel = fake.calls("cancel").get(0);
        assertThat(cancel.longField("gcId")).isEqualTo(1);
        assertThat(Duration.ofNanos(cancel.nanos() - collectedAt)).as("as soon as noticed, not after the long poll")
            .isLessThan(Duration.ofMillis(500));
        assertThat(node.drains).isEmpty();
        assertThat(fake.calls("release")).isEmpty();
        assertThat(stat("Cancels")).isEqualTo(1);
        assertThat(stat("Overtaken")).isEqualTo(1);
        assertThat(stat("QueuedWaits")).isEqualTo(1);
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).contains("cancelled (the JVM collected on its own while queued at position 1)",
            "cancelled at the coordinator");
    }

    @Test
    void aNodeThatQueuedOrWasOvertakenAsksEarlierNextTime() {
        assertThat(new GrantHolder(node, null, Preparation.NONE, CoordinatedMode.settings(options(fake.uri()).build()),
            CoordinatedMode.THREAD_NAME, "", log).scheduleLeadNanos()).as("nothing learned yet").isZero();
        AtomicInteger n = new AtomicInteger();
        fake.on("acquire", c -> n.incrementAndGet() == 1 ? Reply.queued(1).after(300) : Reply.granted(9, 10_000));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        long afterQueue = handler.scheduleLeadNanos();
        assertThat(Duration.ofNanos(afterQueue)).as("the upcall-to-grant time, queueing included")
            .isGreaterThanOrEqualTo(Duration.ofMillis(290)).isLessThan(TIMEOUT);

        fake.on("acquire", c -> Reply.queued(1).after(c.longField("waitMillis")));
        node.lead.set(10_000);
        upcall(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("acquire").size() >= 3);
        sleepMillis(400);
        node.collections.incrementAndGet(); // the JVM overtook the node after it waited 400+ ms
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("cancel").size() == 1);
        assertThat(Duration.ofNanos(handler.scheduleLeadNanos())).as("twice the time waited when overtaken")
            .isGreaterThanOrEqualTo(Duration.ofMillis(800)).isLessThanOrEqualTo(TIMEOUT);
        assertThat(stats().get("ScheduleLeadMs")).isEqualTo(handler.scheduleLeadNanos() / 1_000_000);
    }

    @Test
    void aPreparationHasALeadOfItsOwnAndIsNotCountedAsWaitingForTheGrant() {
        preparation = new Preparation() {
            @Override
            public Prepared prepare(GcRequest request, RecentPauses pauses) {
                long start = System.nanoTime();
                sleepMillis(300); // a Raft leader's hand-off, under the grant
                return new Prepared(Prepared.Kind.HANDED_OFF, "handed off", System.nanoTime() - start);
            }

            @Override
            public long leadNanos(RecentPauses pauses) {
                return 42_000_000L;
            }
        };
        fake.on("acquire", c -> Reply.granted(9, 10_000));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(Duration.ofNanos(handler.scheduleLeadNanos())).as("the grant's time after the preparation, not the"
            + " 300 ms preparation").isLessThan(Duration.ofMillis(300));
        assertThat(handler.preparationLeadNanos()).as("the preparation's own lead").isEqualTo(42_000_000L);
        assertThat(stats().get("PreparationLeadMs")).isEqualTo(42L);
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aCollectionOfTheJvmDuringTheAcquireMeansCancelNotCollect() {
        fake.on("acquire", c -> {
            node.collections.incrementAndGet(); // the JVM collects while the coordinator decides
            return Reply.granted(11, 10_000).after(20);
        });
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("cancel").size() == 1);
        assertThat(node.drains).isEmpty();
        assertThat(stat("Cancels")).isEqualTo(1);
        assertThat(stat("Overtaken")).as("collected before the grant arrived").isEqualTo(1);
    }

    @Test
    void aGrantWhoseLeaseEndsBeforeTheCollectionCouldStartIsNotUsed() {
        // the node's drain timeout 100 ms + the margin: a lease of 50 ms cannot cover the drain
        node.drainTimeout = Duration.ofMillis(100);
        fake.on("acquire", c -> Reply.granted(12, 50));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("cancel").size() == 1);
        assertThat(node.drains).as("never collects after its lease deadline").isEmpty();
        assertThat(fake.calls("release")).isEmpty();
        assertThat(stat("Fenced")).isEqualTo(1);
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).startsWith("WARNING Blade GC #1 YOUNG fenced (epoch 12: its lease ends in");
    }

    @Test
    void aDrainThatEndsPastItsLeaseIsNotCollectedUnder() {
        // the lease covers the node's drain timeout (100 ms) and the margin, but the drain itself takes 1.5 s, as
        // when the JVM is frozen (SIGSTOP) during it: the node must not collect after its lease has ended
        node.drainTimeout = Duration.ofMillis(100);
        node.drainMillis = 1_500;
        fake.on("acquire", c -> Reply.granted(14, 1_000));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("cancel").size() == 1);
        assertThat(node.drainedIds()).as("drained").containsExactly(1L);
        assertThat(node.gateOpenAtCollection).as("collected under the ended lease").isEmpty();
        assertThat(fake.calls("release")).isEmpty();
        assertThat(stat("Fenced")).isEqualTo(1);
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).startsWith("WARNING Blade GC #1 YOUNG fenced (epoch 14: the drain ended ");
    }

    @Test
    void theLeaseIsTimedByRemainingMillisNeverByComparingClocks() {
        // the deadline is an hour behind this JVM's wall clock, yet 10 s are left: the node collects
        long wall = System.currentTimeMillis();
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"GRANTED\",\"epoch\":13,\"deadline\":"
            + (wall - 3_600_000 + 10_000) + ",\"remainingMillis\":10000,\"now\":" + (wall - 3_600_000) + "}"));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(node.drainedIds()).containsExactly(1L);
        assertThat(stat("Fenced")).isZero();
    }

    @Test
    void aCancelledAnswerAsksAgain() {
        AtomicInteger n = new AtomicInteger();
        fake.on("acquire", c -> n.incrementAndGet() == 1 ? Reply.status(200, "{\"status\":\"CANCELLED\"}")
            : Reply.granted(15, 10_000));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(fake.calls("acquire")).hasSize(2);
        assertThat(node.drainedIds()).containsExactly(1L);
    }

    @Test
    void anUnscheduledAnswerLeavesTheCollectionToTheJvm() {
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"UNSCHEDULED\",\"message\":\"the coordinator has"
            + " stepped down\"}"));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> stat("Unscheduled") == 1);
        upcall(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> stat("Unscheduled") == 2);
        assertThat(node.drains).as("neither drained nor collected here: the JVM collects on its own").isEmpty();
        assertThat(fake.calls("acquire")).as("asked once each").hasSize(2);
        assertThat(fake.calls("cancel")).as("the coordinator queued nothing").isEmpty();
        assertThat(stat("FailOpens")).isZero();
    }

    @Test
    void aCoordinatorThatKeepsDroppingTheRequestIsLeftAlone() {
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"CANCELLED\"}"));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.drains.isEmpty());
        assertThat(fake.calls("acquire")).hasSize(3);
        assertThat(stat("FailOpens")).isEqualTo(1);
    }

    @Test
    void aReleaseThatGotNoAnswerIsSentOnceMoreWhenTheCoordinatorAnswersAgain() {
        AtomicInteger n = new AtomicInteger();
        fake.on("release", c -> n.incrementAndGet() == 1 ? Reply.blackHoled() : Reply.ok());
        start(options(fake.uri()).coordinatorTimeout(SHORT_TIMEOUT).build(), true);
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 2);
        assertThat(fake.calls("release")).extracting(c -> c.longField("epoch")).containsExactly(7L, 7L);
        assertThat(log.matching("release failed, sent again when the coordinator answers")).hasSize(1);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
            .until(() -> fake.calls("release").size() == 2);
    }

    @Test
    void aReleaseSentAgainAndRefusedAsStaleIsCountedAndLogged() {
        AtomicInteger n = new AtomicInteger();
        fake.on("release", c -> n.incrementAndGet() == 1 ? Reply.blackHoled()
            : Reply.status(409, "{\"message\":\"node n1 holds no grant with epoch 7\"}"));
        start(options(fake.uri()).coordinatorTimeout(SHORT_TIMEOUT).build(), true);
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> counters.staleLateReleases.sum() == 1);
        assertThat(fake.calls("release")).hasSize(2);
        assertThat(log.matching("the release of epoch 7 sent again was refused as stale")).hasSize(1);
    }

    @Test
    void aNewerRequestWhileQueuedCancelsTheOlderOne() {
        fake.on("acquire", c -> c.longField("gcId") == 1 ? Reply.queued(1).after(c.longField("waitMillis"))
            : Reply.granted(14, 10_000));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !fake.calls("acquire").isEmpty());
        upcall(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("release").size() == 1);
        assertThat(fake.calls("cancel")).singleElement().satisfies(c -> assertThat(c.longField("gcId")).isEqualTo(1));
        assertThat(node.drainedIds()).containsExactly(2L);
        Call cancel = fake.calls("cancel").get(0);
        Call acquire2 = fake.calls("acquire").stream().filter(c -> c.longField("gcId") == 2).findFirst().orElseThrow();
        assertThat(cancel.nanos()).as("the old request goes before the new one is asked for")
            .isLessThan(acquire2.nanos());
    }

    @Test
    void aRejectedAcquireFailsOpenButTheCoordinatorStaysUp() {
        fake.on("acquire", c -> Reply.status(400, "{\"message\":\"node n1 holds a grant for gc 3\"}"));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.drains.isEmpty());
        assertThat(membership.isUp()).isTrue();
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).contains("fail-open (coordinator rejected: acquire: HTTP 400: node n1 holds a "
            + "grant for gc 3)");
    }

    @Test
    void aServerErrorOrGarbageCountsAsDown() {
        fake.on("acquire", c -> Reply.status(200, "<html>proxy error</html>"));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.drains.isEmpty());
        assertThat(stat("FailOpens")).isEqualTo(1);
        await().until(() -> !events().isEmpty());
        assertThat(events().get(0)).contains("fail-open (coordinator bad answer: acquire: the answer is not the "
            + "JSON object expected");
    }

    @Test
    void theLongPollIsBoundedByHalfTheTimeoutAndAtLeastTenMilliseconds() {
        fake.on("acquire", c -> Reply.queued(1).after(Math.min(c.longField("waitMillis"), 20)));
        start();
        node.lead.set(10_000);
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("acquire").size() >= 2);
        node.lead.set(0);
        int seen = fake.calls("acquire").size();
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("acquire").size() >= seen + 2);
        List<Long> waits = fake.calls("acquire").stream().map(c -> c.longField("waitMillis")).toList();
        assertThat(waits.get(0)).isEqualTo(TIMEOUT.toMillis() / 2);
        assertThat(waits.get(waits.size() - 1)).isEqualTo(10L);
        assertThat(fake.calls("acquire").get(0).longField("leadMillis")).isEqualTo(10_000);
    }

    @Test
    void closingDuringACollectionWaitsForItsReleaseSoThatTheNodeLeavesLast() {
        node.drainMillis = 400;
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.drains.isEmpty());
        handler.close(); // the drain is in progress: close waits for it and its release
        membership.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !fake.calls("leave").isEmpty());
        List<String> ops = fake.calls().stream().map(Call::op).filter(o -> !o.equals("heartbeat")).toList();
        assertThat(ops).as("the release of the collection in progress comes before the leave")
            .containsSubsequence("release", "leave").endsWith("leave");
    }

    @Test
    void closingWhileQueuedCancelsAndLeaves() {
        fake.on("acquire", c -> Reply.queued(1).after(c.longField("waitMillis")));
        start();
        upcall(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !fake.calls("acquire").isEmpty());
        handler.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("cancel").size() == 1);
        membership.close();
        assertThat(fake.calls("leave")).hasSize(1);
        assertThat(handler.onGcRequest(request(2))).as("closed: plain behaviour").isEqualTo(GcDecision.COLLECT_NOW);
    }
}
