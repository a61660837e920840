package io.bladegc.agent.coordination;

import static io.bladegc.agent.coordination.CoordinatorClientTest.failure;
import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.coordination.CoordinatorException.Kind;
import io.bladegc.agent.coordination.FakeCoordinator.Reply;
import io.bladegc.api.grant.SlotAnswer;
import io.bladegc.api.slot.Ask;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replicated coordinator: three fake replicas, of which one serves node calls (the leader) and the others answer
 * {@code 503 NOT_LEADER}, refuse, or do not answer. The client goes on to the next replica, sticks to the one that
 * answered, and fails as "coordinator down" only when none did, within its bound.
 */
class CoordinatorFailoverTest {
    private static final Duration TIMEOUT = Duration.ofMillis(500);
    /** Slack for a loaded machine on top of a bound. */
    private static final Duration SLACK = Duration.ofMillis(700);

    private final List<FakeCoordinator> replicas = new ArrayList<>();
    private final CoordinationCounters counters = new CoordinationCounters();
    private final LogLines log = new LogLines();
    private CoordinatorClient client;

    @BeforeEach
    void start() throws IOException {
        for (int i = 0; i < 3; i++) {
            replicas.add(FakeCoordinator.start());
        }
        client = new CoordinatorClient(replicas.stream().map(FakeCoordinator::uri).toList(), "n1", null, TIMEOUT,
            counters, log);
    }

    @AfterEach
    void stop() {
        client.close();
        replicas.forEach(FakeCoordinator::close);
    }

    private FakeCoordinator replica(int i) {
        return replicas.get(i);
    }

    private List<String> switches() {
        return log.matching("now talks to coordinator replica");
    }

    @Test
    void aCallAnsweredNotLeaderLandsOnTheNextReplicaWhichLaterCallsGoToFirst() throws Exception {
        replica(0).leader(false);
        client.join();
        assertThat(replica(0).calls("join")).hasSize(1);
        assertThat(replica(1).calls("join")).as("the same call, at the next replica").hasSize(1);
        assertThat(replica(2).calls()).isEmpty();
        assertThat(client.replica()).isEqualTo(replica(1).uri());

        client.heartbeat(Heartbeat.ALIVE);
        assertThat(client.acquire(Ask.young(1, 100), 50).get().kind()).isEqualTo(SlotAnswer.Kind.GRANTED);
        client.release(7, 3);
        assertThat(replica(0).calls()).as("no call goes to the follower again").hasSize(1);
        assertThat(replica(1).calls()).extracting(FakeCoordinator.Call::op)
            .containsExactly("join", "heartbeat", "acquire", "release");
        assertThat(replica(1).calls("join")).as("no join again at the new leader: the ledger is shared").hasSize(1);
        assertThat(counters.failovers.sum()).isEqualTo(1);
        assertThat(switches()).as("logged once, at INFO, naming the replica and why").singleElement().satisfies(l ->
            assertThat(l).startsWith("INFO ").contains(replica(1).uri().toString(), replica(0).uri().toString(),
                "not leader"));
    }

    @Test
    void whenTheCurrentReplicaDiesTheNextCallGoesToAnotherAndTheCountersSaySo() throws Exception {
        client.join();
        assertThat(client.replica()).isEqualTo(replica(0).uri());
        assertThat(switches()).isEmpty();

        replica(0).stop(); // connection refused
        replica(1).leader(false); // the election went to the third
        long t0 = System.nanoTime();
        client.heartbeat(Heartbeat.ALIVE);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("refused and NOT_LEADER cost no timeout")
            .isLessThan(TIMEOUT);
        assertThat(replica(1).calls("heartbeat")).hasSize(1);
        assertThat(replica(2).calls("heartbeat")).hasSize(1);
        assertThat(client.replica()).isEqualTo(replica(2).uri());

        // round robin: from the third, the first comes next
        replica(0).restart();
        replica(2).stop();
        client.heartbeat(Heartbeat.ALIVE);
        assertThat(replica(0).calls("heartbeat")).hasSize(1);
        assertThat(replica(1).calls("heartbeat")).as("not tried: the first answered").hasSize(1);
        assertThat(client.replica()).isEqualTo(replica(0).uri());
        assertThat(counters.failovers.sum()).isEqualTo(2);
        assertThat(switches()).hasSize(2);
    }

    @Test
    void aReplicaThatDoesNotAnswerCostsOneTimeoutThenTheNextServesTheCall() throws Exception {
        replica(0).on("join", c -> Reply.blackHoled());
        long t0 = System.nanoTime();
        client.join();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(took).isBetween(TIMEOUT.minusMillis(50), TIMEOUT.plus(SLACK));
        assertThat(client.replica()).isEqualTo(replica(1).uri());
        assertThat(switches()).singleElement().asString().contains("timeout");
    }

    @Test
    void withEveryReplicaDownTheCallFailsAsCoordinatorDownAtOnce() {
        replicas.forEach(FakeCoordinator::stop);
        long t0 = System.nanoTime();
        CoordinatorException e = failure(client::join);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("refused: no timeout waited").isLessThan(TIMEOUT);
        assertThat(e.kind()).isEqualTo(Kind.UNREACHABLE);
        assertThat(e.kind().coordinatorDown()).isTrue();
        assertThat(e.getMessage()).startsWith("join: no coordinator replica served the call (")
            .contains(replica(0).uri().toString(), replica(1).uri().toString(), replica(2).uri().toString())
            .doesNotContain("\n");
        assertThat(counters.failovers.sum()).isZero();
        assertThat(client.replica()).as("unchanged").isEqualTo(replica(0).uri());
    }

    @Test
    void withNoLeaderTheCallFailsAsCoordinatorDown() {
        replicas.forEach(r -> r.leader(false));
        CoordinatorException e = failure(() -> client.release(7, 1));
        assertThat(e.kind()).isEqualTo(Kind.NOT_LEADER);
        assertThat(e.kind().coordinatorDown()).isTrue();
        assertThat(replicas).allSatisfy(r -> assertThat(r.calls("release")).hasSize(1));
    }

    @Test
    void withEveryReplicaSilentACallFailsWithinItsBound() {
        replicas.forEach(r -> r.on("heartbeat", c -> Reply.blackHoled()));
        long t0 = System.nanoTime();
        CoordinatorException e = failure(() -> client.heartbeat(Heartbeat.ALIVE));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
        assertThat(client.callBound()).isEqualTo(TIMEOUT.multipliedBy(3).plus(CoordinatorClient.GRACE));
        assertThat(took).as("one timeout per replica").isBetween(TIMEOUT.multipliedBy(3).minusMillis(50),
            client.callBound().plus(SLACK));
        assertThat(replicas).allSatisfy(r -> assertThat(r.calls("heartbeat")).hasSize(1));
    }

    @Test
    void anAcquireFailsOverWithinOneTimeoutAndKeepsItsLongPollWait() throws Exception {
        replica(0).leader(false);
        replica(1).stop();
        SlotAnswer a = client.acquire(Ask.young(3, 120), 200).get();
        assertThat(a.kind()).isEqualTo(SlotAnswer.Kind.GRANTED);
        FakeCoordinator.Call acquire = replica(2).calls("acquire").get(0);
        assertThat(acquire.longField("gcId")).isEqualTo(3);
        assertThat(acquire.longField("leadMillis")).isEqualTo(120);
        assertThat(acquire.longField("waitMillis")).as("what was left of the wait").isBetween(100L, 200L);
        assertThat(client.replica()).isEqualTo(replica(2).uri());
    }

    @Test
    void anAcquireDoesNotMultiplyItsTimeoutByTheReplicas() {
        replicas.forEach(r -> r.on("acquire", c -> Reply.blackHoled()));
        long t0 = System.nanoTime();
        CoordinatorException e = failure(() -> client.acquire(Ask.young(1, 0), 100).get());
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
        assertThat(took).as("one coordinator timeout for all replicas").isLessThan(TIMEOUT.plus(SLACK));
        assertThat(replica(2).calls("acquire")).as("no time was left for the third").isEmpty();
    }

    @Test
    void unavailableIsAnAnswerNotAReasonToFailOver() {
        replica(0).on("join", c -> Reply.status(503, "{\"status\":\"UNAVAILABLE\",\"message\":\"shutting down\"}"));
        CoordinatorException e = failure(client::join);
        assertThat(e.kind()).isEqualTo(Kind.BAD_ANSWER);
        assertThat(e.getMessage()).isEqualTo("join: HTTP 503: shutting down");
        assertThat(replica(1).calls()).isEmpty();
        assertThat(counters.failovers.sum()).isZero();
    }

    @Test
    void aRefusalFromAnotherReplicaMakesItTheCurrentOne() {
        replica(0).stop();
        replica(1).on("release", c -> Reply.status(409, "{\"status\":\"STALE_EPOCH\",\"message\":\"stale\"}"));
        CoordinatorException e = failure(() -> client.release(7, 1));
        assertThat(e.kind()).isEqualTo(Kind.STALE_EPOCH);
        assertThat(client.replica()).as("it answered: it is the leader").isEqualTo(replica(1).uri());
        assertThat(counters.failovers.sum()).isEqualTo(1);
    }

    @Test
    void aSingleReplicaAnsweringNotLeaderIsCoordinatorDownWithItsMessage() {
        FakeCoordinator only = replica(0);
        only.leader(false);
        CoordinatorClient single = new CoordinatorClient(List.of(only.uri()), "n1", null, TIMEOUT, counters, log);
        try {
            CoordinatorException e = failure(single::join);
            assertThat(e.kind()).isEqualTo(Kind.NOT_LEADER);
            assertThat(e.kind().coordinatorDown()).isTrue();
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.getMessage()).isEqualTo("join: HTTP 503: this coordinator replica is not the leader; try "
                + "another");
            assertThat(only.calls("join")).as("tried once").hasSize(1);
            assertThat(single.callBound()).isEqualTo(TIMEOUT.plus(CoordinatorClient.GRACE));
        } finally {
            single.close();
        }
    }

    @Test
    void theReplicasAreNamedTheWayTheOptionWritesThem() {
        assertThat(client.coordinators()).isEqualTo(replica(0).uri() + "|" + replica(1).uri() + "|"
            + replica(2).uri());
        assertThat(client.replica()).as("the first, until another answers").isEqualTo(replica(0).uri());
    }
}
