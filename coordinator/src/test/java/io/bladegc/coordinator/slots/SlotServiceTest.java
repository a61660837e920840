package io.bladegc.coordinator.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotLedger;
import io.bladegc.api.slot.SlotPolicy;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SlotServiceTest {
    private static final long START = 1_000_000;

    private ManualSlotExecutor slotThread = new ManualSlotExecutor(START);
    private final RecordingLoadBalancer lb = new RecordingLoadBalancer();
    private SlotService service = service(Runnable::run);

    /** A service on a fresh fake slot executor, with load-balancer calls run by {@code lbCalls}. */
    private SlotService service(Executor lbCalls) {
        slotThread = new ManualSlotExecutor(START);
        return SlotService.builder().policy(SlotPolicy.defaults()).clock(slotThread.clock()).executor(slotThread)
            .loadBalancer(lb).loadBalancerCalls(lbCalls).maxMembers(3).build();
    }

    @AfterEach
    void close() {
        service.close();
    }

    /** @return the member key the node called {@code node} uses in these tests */
    private static String key(String node) {
        return "key-of-node-" + node + "-0123456789";
    }

    private static SlotReply now(CompletableFuture<SlotReply> f) {
        assertThat(f).isDone();
        return f.join();
    }

    private void join(String... nodes) {
        for (String n : nodes) {
            assertThat(now(service.join(n, key(n))).kind()).isEqualTo(SlotReply.Kind.OK);
        }
    }

    @Test
    void grantsAtOnceWhenASlotIsFreeAndDrainsTheNodeFirst() {
        join("a", "b");
        SlotReply r = now(service.acquire("a", key("a"), Ask.young(1, 100), 5_000));
        assertThat(r.kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(r.grant().epoch()).isEqualTo(1);
        assertThat(r.grant().deadline()).isEqualTo(START + 10_000);
        assertThat(r.remainingMillis()).isEqualTo(10_000);
        assertThat(lb.calls()).containsExactly("drain a");
    }

    @Test
    void aGrantIsAnsweredOnlyAfterTheDrainCallReturned() {
        ArrayDeque<Runnable> lbTasks = new ArrayDeque<>();
        service.close();
        service = service(lbTasks::add);
        join("a", "b");
        CompletableFuture<SlotReply> f = service.acquire("a", key("a"), Ask.young(1, 100), 5_000);
        assertThat(f).isNotDone();
        assertThat(lb.calls()).isEmpty();
        lbTasks.poll().run();
        assertThat(lb.calls()).containsExactly("drain a");
        assertThat(now(f).kind()).isEqualTo(SlotReply.Kind.GRANTED);
    }

    @Test
    void aLongPollIsGrantedWhenTheHolderReleases() {
        join("a", "b", "c");
        SlotReply a = now(service.acquire("a", key("a"), Ask.young(1, 100), 5_000));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(7, 50), 5_000);
        assertThat(b).isNotDone();
        slotThread.advance(1_000);
        assertThat(b).isNotDone();

        assertThat(now(service.release("a", key("a"), a.grant().epoch(), 12)).kind()).isEqualTo(SlotReply.Kind.OK);
        SlotReply granted = now(b);
        assertThat(granted.kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(granted.gcId()).isEqualTo(7);
        assertThat(granted.grant().epoch()).isEqualTo(2);
        assertThat(granted.grant().deadline()).isEqualTo(START + 1_000 + 10_000);
        assertThat(lb.calls()).containsExactly("drain a", "ready a", "drain b");
    }

    @Test
    void aFullOfferTakenWhileTheNodeWaitedReachesItsLongPoll() {
        join("a", "b", "c");
        SlotReply a = now(service.acquire("a", key("a"), Ask.young(1, 100), 5_000));
        // b offers a 300 ms full one
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), new Ask(7, 5_000, false, 0, 300), 30_000);
        assertThat(b).isNotDone();
        // nobody else waits or is due: the ledger takes the offer
        now(service.release("a", key("a"), a.grant().epoch(), 12));
        SlotReply granted = now(b);
        assertThat(granted.kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(granted.grant().full()).as("the grant the long-poll answers says full, as the ledger's").isTrue();
    }

    @Test
    void aDueNodeIsGrantedBeyondKAndTakenOutOfRotationWhileTheOtherCollects() {
        service.close();
        slotThread = new ManualSlotExecutor(START);
        service = SlotService.builder().policy(new SlotPolicy(1, 0, 1, 10_000, 5_000, 2)).clock(slotThread.clock())
            .executor(slotThread).loadBalancer(lb).loadBalancerCalls(Runnable::run).maxMembers(3).build();
        join("a", "b", "c");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 5_000));
        // b's JVM collects in 400 ms
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(1, 400), 5_000);
        slotThread.advance(200);
        assertThat(b).as("not due yet").isNotDone();
        slotThread.advance(100); // 100 ms left: due; the next tick grants it
        assertThat(now(b).kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(lb.calls()).containsExactly("drain a", "drain b");
        assertThat(service.cluster().join().recentEvents()).filteredOn(e -> e.type() == SlotEvent.Type.GRANTED)
            .extracting(SlotEvent::node, SlotEvent::detail)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("a", ""),
                org.assertj.core.groups.Tuple.tuple("b", SlotLedger.DUE_DETAIL));
    }

    @Test
    void aLongPollTimesOutWithTheQueuePosition() {
        join("a", "b", "c");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(1, 500), 2_000);
        // c is more urgent: ahead of b
        CompletableFuture<SlotReply> c = service.acquire("c", key("c"), Ask.young(1, 100), 2_000);
        slotThread.advance(1_999);
        assertThat(b).isNotDone();
        slotThread.advance(1);
        assertThat(now(b).kind()).isEqualTo(SlotReply.Kind.QUEUED);
        assertThat(now(b).position()).isEqualTo(2);
        assertThat(now(c).position()).isEqualTo(1);
        assertThat(slotThread.pending()).isEqualTo(1); // only the tick is left
    }

    @Test
    void withoutWaitAQueuedAcquireAnswersAtOnce() {
        join("a", "b");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        SlotReply b = now(service.acquire("b", key("b"), Ask.young(1, 100), 0));
        assertThat(b.kind()).isEqualTo(SlotReply.Kind.QUEUED);
        assertThat(b.position()).isEqualTo(1);
    }

    @Test
    void aStaleEpochIsRejected() {
        join("a", "b");
        SlotReply a = now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        SlotReply stale = now(service.release("a", key("a"), a.grant().epoch() + 1, 5));
        assertThat(stale.kind()).isEqualTo(SlotReply.Kind.STALE_EPOCH);
        assertThat(stale.message()).contains("epoch");
        assertThat(now(service.renew("a", key("a"), 99)).kind()).isEqualTo(SlotReply.Kind.STALE_EPOCH);
    }

    @Test
    void anExpiredLeaseGoesToTheNextNodeAndTheLateReleaseIsStale() {
        join("a", "b", "c");
        SlotReply a = now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(1, 100), 30_000);
        for (int i = 0; i < 40; i++) { // b and c keep heartbeating, a is frozen
            slotThread.advance(250);
            service.heartbeat("b", key("b"), -1, -1);
            service.heartbeat("c", key("c"), -1, -1);
        }
        // a's lease (10 s) ran out at the first tick after START + 10 s; a itself was lost after 5 s of silence
        SlotReply granted = now(b);
        assertThat(granted.kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(granted.grant().grantedAt()).isBetween(START + 10_000, START + 10_100);
        assertThat(lb.calls()).containsExactly("drain a", "ready a", "drain b");
        SlotReply late = now(service.release("a", key("a"), a.grant().epoch(), 30));
        assertThat(late.kind()).isIn(SlotReply.Kind.STALE_EPOCH, SlotReply.Kind.UNKNOWN_NODE);
        List<SlotEvent.Type> types = service.cluster().join().recentEvents().stream().map(SlotEvent::type).toList();
        assertThat(types).contains(SlotEvent.Type.LOST, SlotEvent.Type.EXPIRED);
        assertThat(types.indexOf(SlotEvent.Type.EXPIRED)).isLessThan(types.lastIndexOf(SlotEvent.Type.GRANTED));
    }

    @Test
    void renewMovesTheDeadline() {
        join("a", "b");
        SlotReply a = now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        slotThread.advance(4_000);
        SlotReply renewed = now(service.renew("a", key("a"), a.grant().epoch()));
        assertThat(renewed.kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(renewed.grant().deadline()).isEqualTo(START + 14_000);
    }

    @Test
    void cancellingAQueuedRequestAnswersItsPoll() {
        join("a", "b");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(3, 100), 5_000);
        assertThat(now(service.cancel("b", key("b"), 3)).kind()).isEqualTo(SlotReply.Kind.OK);
        assertThat(now(b).kind()).isEqualTo(SlotReply.Kind.CANCELLED);
        assertThat(lb.calls()).containsExactly("drain a"); // b was never drained, so it is not readied
    }

    @Test
    void cancellingAGrantPutsTheNodeBack() {
        join("a", "b");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        now(service.cancel("a", key("a"), 1));
        assertThat(lb.calls()).containsExactly("drain a", "ready a");
    }

    @Test
    void aNodeThatLeavesWhileWaitingGets404AndItsGrantIsGivenBack() {
        join("a", "b");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(1, 100), 5_000);
        now(service.leave("b", key("b")));
        assertThat(now(b).kind()).isEqualTo(SlotReply.Kind.UNKNOWN_NODE);
        now(service.leave("a", key("a")));
        assertThat(lb.calls()).containsExactly("drain a", "ready a");
    }

    @Test
    void aNewerAcquireAnswersTheOlderPollOfTheSameNode() {
        join("a", "b");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        CompletableFuture<SlotReply> first = service.acquire("b", key("b"), Ask.young(1, 100), 5_000);
        CompletableFuture<SlotReply> second = service.acquire("b", key("b"), Ask.young(2, 100), 5_000);
        assertThat(now(first).kind()).as("API.md: replaced").isEqualTo(SlotReply.Kind.CANCELLED);
        assertThat(now(first).gcId()).isEqualTo(1);
        assertThat(now(first).message()).contains("replaced by GC request 2");
        assertThat(second).isNotDone();
        assertThat(service.cluster().join().waiting()).isEqualTo(1);
    }

    @Test
    void aPollWhoseClientWentAwayIsForgotten() {
        join("a", "b");
        now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(1, 100), 5_000);
        assertThat(service.cluster().join().waiting()).isEqualTo(1);
        b.cancel(false);
        assertThat(service.cluster().join().waiting()).isZero();
        assertThat(slotThread.pending()).isEqualTo(1); // the poll's timeout went with it; only the tick is left
        assertThat(service.cluster().join().view().queue()).hasSize(1); // the request itself still waits
    }

    @Test
    void aFailingLoadBalancerIsCountedAndTheGrantStillGoesOut() {
        lb.failFor("a");
        join("a", "b");
        assertThat(now(service.acquire("a", key("a"), Ask.young(1, 100), 0)).kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(service.metrics().scrape()).contains("blade_coordinator_lb_errors_total{op=\"drain\"} 1.0");
    }

    @Test
    void unknownNodesAreAnsweredUnknown() {
        assertThat(now(service.heartbeat("x", key("x"), -1, -1)).kind())
            .isEqualTo(SlotReply.Kind.UNKNOWN_NODE);
        assertThat(now(service.acquire("x", key("x"), Ask.young(1, 1), 1_000)).kind())
            .isEqualTo(SlotReply.Kind.UNKNOWN_NODE);
        assertThat(now(service.leave("x", key("x"))).kind()).isEqualTo(SlotReply.Kind.UNKNOWN_NODE);
    }

    @Test
    void joinsBeyondTheMemberLimitAreRefused() {
        join("a", "b", "c");
        assertThat(now(service.join("d", key("d"))).kind()).isEqualTo(SlotReply.Kind.UNAVAILABLE);
        assertThat(now(service.join("a", key("a"))).kind()).isEqualTo(SlotReply.Kind.OK); // members may still re-join
    }

    @Test
    void recentEventsKeepTheLast256() {
        join("a", "b", "c");
        for (int i = 1; i <= 200; i++) {
            SlotReply r = now(service.acquire("a", key("a"), Ask.young(i, 10), 0));
            now(service.release("a", key("a"), r.grant().epoch(), 1));
        }
        List<SlotEvent> recent = service.cluster().join().recentEvents();
        assertThat(recent).hasSize(SlotService.RECENT_EVENTS);
        assertThat(recent.get(recent.size() - 1).type()).isEqualTo(SlotEvent.Type.RELEASED);
    }

    @Test
    void gaugesAndCountersFollowTheLedger() {
        join("a", "b");
        SlotReply r = now(service.acquire("a", key("a"), Ask.young(1, 10), 0));
        now(service.acquire("b", key("b"), Ask.young(1, 10), 0));
        slotThread.advance(SlotService.TICK_MILLIS);
        String text = service.metrics().scrape();
        assertThat(text).contains("blade_coordinator_grants_total 1.0", "blade_coordinator_collecting 1.0",
            "blade_coordinator_queue 1.0", "blade_coordinator_members 2.0");
        now(service.release("a", key("a"), r.grant().epoch(), 25));
        assertThat(service.metrics().scrape()).contains("blade_coordinator_releases_total 1.0",
            "blade_coordinator_pause_milliseconds_sum 25.0", "blade_coordinator_grants_total 2.0");
    }

    @Test
    void closingAnswersOpenPollsAndRefusesLaterCalls() {
        join("a", "b");
        now(service.acquire("a", key("a"), Ask.young(1, 10), 0));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(1, 10), 5_000);
        service.close();
        assertThat(now(b).kind()).isEqualTo(SlotReply.Kind.UNAVAILABLE);
        assertThat(now(service.join("c", key("c"))).kind()).isEqualTo(SlotReply.Kind.UNAVAILABLE);
        assertThatThrownBy(() -> service.cluster().get()).isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        assertThat(service.isOpen()).isFalse();
    }

    @Test
    void theRealSlotThreadRunsTheSameWay() throws Exception {
        service.close();
        try (SlotService real = SlotService.builder().loadBalancer(lb).build()) {
            assertThat(real.join("a", key("a")).get().kind()).isEqualTo(SlotReply.Kind.OK);
            assertThat(real.join("b", key("b")).get().kind()).isEqualTo(SlotReply.Kind.OK);
            SlotReply a = real.acquire("a", key("a"), Ask.young(1, 10), 0).get();
            CompletableFuture<SlotReply> b = real.acquire("b", key("b"), Ask.young(1, 10), 10_000);
            assertThat(real.release("a", key("a"), a.grant().epoch(), 3).get().kind()).isEqualTo(SlotReply.Kind.OK);
            assertThat(b.get().kind()).isEqualTo(SlotReply.Kind.GRANTED);
        }
    }

    // ---- member keys (issue 15): only the node itself acts for it ----

    @Test
    void anotherCallerCannotWithdrawANodesGrantOrQueuedRequest() {
        join("a", "b", "c");
        SlotReply a = now(service.acquire("a", key("a"), Ask.young(1, 100), 0));
        CompletableFuture<SlotReply> b = service.acquire("b", key("b"), Ask.young(7, 100), 5_000);
        String forged = key("c");
        for (SlotReply r : List.of(now(service.cancel("a", forged, 1)), now(service.cancel("b", null, 7)),
            now(service.leave("a", forged)), now(service.leave("b", null)),
            now(service.release("a", forged, a.grant().epoch(), 1)), now(service.renew("a", forged, a.grant().epoch())),
            now(service.heartbeat("a", forged, 10, -1)), now(service.join("a", forged)))) {
            assertThat(r.kind()).isEqualTo(SlotReply.Kind.FORBIDDEN);
            assertThat(r.message()).contains("member key");
        }
        assertThat(now(service.acquire("b", null, Ask.young(7, 100), 0)).kind()).isEqualTo(SlotReply.Kind.FORBIDDEN);
        assertThat(b).isNotDone();
        ClusterSnapshot c = service.cluster().join();
        assertThat(c.view().collecting()).extracting(g -> g.node()).containsExactly("a");
        assertThat(c.view().queue()).extracting(q -> q.node()).containsExactly("b");
        assertThat(c.view().members()).containsExactly("a", "b", "c");
        assertThat(lb.calls()).containsExactly("drain a");
        now(service.cancel("a", key("a"), 1)); // the holder itself may
        assertThat(now(b).kind()).isEqualTo(SlotReply.Kind.GRANTED);
    }

    @Test
    void aJoinWithoutAKeyGetsOneMadeThatLaterCallsMustCarry() {
        SlotReply joined = now(service.join("a", null));
        assertThat(joined.kind()).isEqualTo(SlotReply.Kind.OK);
        assertThat(joined.memberKey()).matches("[A-Za-z0-9_-]{22}");
        assertThat(now(service.join("b", key("b"))).memberKey()).as("a key of its own is not echoed").isEmpty();
        assertThat(now(service.heartbeat("a", null, -1, -1)).kind()).isEqualTo(SlotReply.Kind.FORBIDDEN);
        assertThat(now(service.heartbeat("a", joined.memberKey(), -1, -1)).kind())
            .isEqualTo(SlotReply.Kind.OK);
        SlotReply again = now(service.join("a", joined.memberKey()));
        assertThat(again.kind()).isEqualTo(SlotReply.Kind.OK);
        assertThat(again.memberKey()).as("a member's join makes no new key").isEmpty();
    }

    @Test
    void aKeyGoesOnlyWhenTheLedgerForgetsTheNode() {
        join("a", "b");
        now(service.leave("a", key("a")));
        assertThat(now(service.join("a", "a-new-key-after-leaving")).kind()).isEqualTo(SlotReply.Kind.OK);

        SlotReply granted = now(service.acquire("b", key("b"), Ask.young(1, 100), 0));
        slotThread.advance(3_000); // b falls silent: lost, its grant runs on to its deadline
        now(service.heartbeat("a", "a-new-key-after-leaving", -1, -1));
        slotThread.advance(3_000);
        assertThat(service.cluster().join().view().members()).containsExactly("a");
        assertThat(now(service.join("b", "someone-else-as-b")).kind()).as("while b's grant runs")
            .isEqualTo(SlotReply.Kind.FORBIDDEN);
        assertThat(now(service.release("b", key("b"), granted.grant().epoch(), 5)).kind())
            .isEqualTo(SlotReply.Kind.OK);
        assertThat(now(service.join("b", "someone-else-as-b")).kind()).isEqualTo(SlotReply.Kind.OK);
    }

    @Test
    void whenCollectionsComeDueFasterThanTheSlotServesThemTheCoordinatorStepsDownAndSaysSo() {
        join("a", "b");
        SlotReply first = now(service.acquire("b", key("b"), Ask.young(1, 100), 0));
        slotThread.advance(400);
        now(service.release("b", key("b"), first.grant().epoch(), 40)); // b holds 400 ms
        long gcId = 2;
        SlotReply a = null;
        int cycles = 0;
        // every 500 ms a holds the slot for 400 ms, and b's JVM collects on its own while b waits: 1.6 slots needed
        for (; cycles < 40; cycles++, gcId++) {
            a = now(service.acquire("a", key("a"), Ask.young(gcId, 100), 0));
            if (a.kind() != SlotReply.Kind.GRANTED) {
                break;
            }
            assertThat(now(service.acquire("b", key("b"), Ask.young(gcId, 300), 0)).kind())
                .isEqualTo(SlotReply.Kind.QUEUED);
            slotThread.advance(300);
            now(service.cancel("b", key("b"), gcId)); // its JVM collected first
            slotThread.advance(100);
            now(service.release("a", key("a"), a.grant().epoch(), 40));
            slotThread.advance(100);
        }
        assertThat(a.kind()).isEqualTo(SlotReply.Kind.UNSCHEDULED);
        assertThat(a.message()).contains("stepped down");
        assertThat(cycles).as("not before the demand had exceeded the slot for 5 s")
            .isGreaterThanOrEqualTo((int) (Governor.STEP_DOWN_MILLIS / 500));
        ClusterSnapshot cluster = service.cluster().join();
        assertThat(cluster.observing()).isTrue();
        assertThat(cluster.infeasible()).isTrue();
        assertThat(cluster.view().queue()).isEmpty();
        assertThat(now(service.acquire("b", key("b"), Ask.young(gcId, 300), 0)).kind())
            .isEqualTo(SlotReply.Kind.UNSCHEDULED);
        assertThat(lb.calls()).as("b out of rotation only for its first collection, none while observing")
            .filteredOn("drain b"::equals).hasSize(1);
    }

    @Test
    void aHeartbeatInvitesTheNodeThatWouldComeDueDuringAnothersNearFullCollection() {
        join("a", "b", "c");
        SlotReply full = now(service.acquire("a", key("a"), new Ask(1, 100, true, 500, 0), 0));
        assertThat(full.grant().full()).isTrue();
        slotThread.advance(500);
        now(service.release("a", key("a"), full.grant().epoch(), 480)); // a's full collection held the slot 500 ms
        assertThat(now(service.heartbeat("a", key("a"), 800, 1_000)).invited()).isFalse();
        SlotReply b = now(service.heartbeat("b", key("b"), 1_300, -1));
        assertThat(b.invited()).isTrue();
        assertThat(b.message()).contains("would meet a's");
        assertThat(now(service.heartbeat("c", key("c"), 5_000, -1)).invited()).isFalse();
    }

    @Test
    void aQueuedMembersHeartbeatTellsWhenItsFullCollectionComesAndInvitesTheOthers() {
        join("a", "b", "c");
        assertThat(now(service.acquire("c", key("c"), Ask.young(1, 100), 0)).kind()).isEqualTo(SlotReply.Kind.GRANTED);
        assertThat(now(service.acquire("a", key("a"), new Ask(1, 5_000, true, 500, 0), 0)).kind())
            .as("a's full collection, expected to hold 500 ms, waits for c").isEqualTo(SlotReply.Kind.QUEUED);
        assertThat(now(service.heartbeat("a", key("a"), 5_000, 1_000)).kind()).isEqualTo(SlotReply.Kind.QUEUED);
        assertThat(now(service.heartbeat("b", key("b"), 1_300, -1)).invited())
            .as("b comes due during a's full collection, which a's heartbeat while queued said is due in 1 s").isTrue();
    }
}
