package io.bladegc.agent.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.grant.Released;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CoordinatorPort} with its {@link Membership} against a fake coordinator on loopback: after a collection the
 * node tells the coordinator its next due time at once, not at the next regular heartbeat (an hour away here).
 */
class CoordinatorPortTest {
    private static final Duration NO_REGULAR_HEARTBEAT = Duration.ofHours(1);

    private FakeCoordinator fake;
    private CoordinatorClient client;
    private Membership membership;
    private CoordinatorPort port;
    private final AtomicInteger invitations = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        fake = FakeCoordinator.start();
        CoordinationCounters counters = new CoordinationCounters();
        LogLines log = new LogLines();
        client = new CoordinatorClient(List.of(fake.uri()), "n1", null, Duration.ofSeconds(2), counters, log);
        membership = new Membership(client, "n1", NO_REGULAR_HEARTBEAT, () -> new Heartbeat(420, 3_000),
            invitations::incrementAndGet, counters, log);
        port = new CoordinatorPort(client, membership);
        membership.start();
        await().atMost(Duration.ofSeconds(5)).until(membership::isUp);
    }

    @AfterEach
    void stop() {
        membership.close();
        client.close();
        fake.close();
    }

    @Test
    void aReleaseIsFollowedByAHeartbeatWithTheNextDueTime() {
        assertThat(fake.calls("heartbeat")).as("the first tick joins; the next is an hour away").isEmpty();
        assertThat(port.release(7, 3).kind()).isEqualTo(Released.Kind.RELEASED);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("heartbeat").size() == 1);
        assertThat(fake.calls("heartbeat").get(0).longField("dueInMillis")).isEqualTo(420);
        assertThat(fake.calls("heartbeat").get(0).longField("fullDueInMillis")).isEqualTo(3_000);
        assertThat(fake.calls("heartbeat").get(0).nanos()).as("after the release, not before")
            .isGreaterThan(fake.calls("release").get(0).nanos());
    }

    @Test
    void aCancelIsFollowedByAHeartbeatToo() {
        port.cancel(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("heartbeat").size() == 1);
    }

    @Test
    void noHeartbeatIsSentSoonWhileTheCoordinatorIsDown() throws InterruptedException {
        membership.markDown("test");
        membership.heartbeatSoon();
        Thread.sleep(200);
        assertThat(fake.calls("heartbeat")).isEmpty();
        assertThat(fake.calls("join")).as("only the first join: the next tick is an hour away").hasSize(1);
    }

    @Test
    void aHeartbeatAnsweredWithAnInvitationAsksTheNodeToCollect() {
        fake.on("heartbeat", c -> FakeCoordinator.Reply.status(200,
            "{\"status\":\"OK\",\"invited\":true,\"message\":\"collect now\"}"));
        membership.heartbeatSoon();
        await().atMost(Duration.ofSeconds(5)).until(() -> invitations.get() == 1);
        fake.on("heartbeat", c -> FakeCoordinator.Reply.ok());
        membership.heartbeatSoon();
        await().atMost(Duration.ofSeconds(5)).until(() -> fake.calls("heartbeat").size() == 2);
        assertThat(invitations.get()).as("an answer without an invitation asks nothing").isEqualTo(1);
    }
}
