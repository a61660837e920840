package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.Blade;
import io.bladegc.api.Gate;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * In a JVM started with Blade's agent ({@code -javaagent}, set by failsafe), client requests reaching a Ratis peer
 * that does not lead pass the JVM's gate (the agent's {@code ClientRequestAdvice}): a follower read in flight holds
 * the drain, and with the gate closed (as for a collection) a client that still takes a follower for the leader is
 * redirected to the leader instead of reading from the follower. The three servers of {@link StepDownReadRace} share
 * this JVM's one gate; the leader's requests pass uncounted.
 */
class RatisFollowerGateIT {
    @AutoClose
    private final StepDownReadRace race;
    private final Gate gate;

    RatisFollowerGateIT() throws Exception {
        race = new StepDownReadRace();
        gate = Blade.node().orElseThrow(() -> new AssertionError("no Blade node: is the agent attached?")).gate();
    }

    @AfterEach
    void openTheGate() {
        gate.open();
    }

    @Test
    void withTheGateClosedAFollowerRedirectsAReadToTheLeader() throws Exception {
        RaftPeerId follower = follower();
        try (RaftClient c = race.clientAsking(follower)) {
            race.clearRetried(); // the setup's own calls
            assertThat(c.io().sendReadOnly(Message.valueOf("r")).isSuccess()).isTrue();
            assertThat(race.retried()).as("gate open: the follower itself answers").isEmpty();

            assertThat(gate.close()).isTrue();
            RaftClientReply reply = c.io().sendReadOnly(Message.valueOf("r"));
            assertThat(reply.isSuccess()).isTrue();
            assertThat(reply.getServerId()).as("answered by the leader").isEqualTo(race.leader().getId());
            assertThat(race.retried()).as("gate closed: the follower answered NotLeaderException, no timeout")
                .containsExactly(StepDownReadRace.REDIRECT);
        }
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void aFollowerReadInFlightHoldsTheDrainUntilItIsAnswered() throws Exception {
        RaftServer leader = race.leader();
        RaftPeerId follower = follower();
        try (RaftClient c = race.clientAsking(follower)) {
            // the follower's read asks the leader for its read index, which needs the followers' acknowledgements
            assertThat(c.io().send(Message.valueOf("w")).isSuccess()).isTrue();
            race.holdAppendsFrom(leader.getId());
            CompletableFuture<RaftClientReply> read = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.io().sendReadOnly(Message.valueOf("r"), follower);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (gate.inFlight() == 0 && System.nanoTime() < until) {
                Thread.sleep(1);
            }
            assertThat(gate.inFlight()).as("the follower read, admitted").isEqualTo(1);
            assertThat(gate.close()).isTrue();
            assertThat(gate.awaitDrained(Duration.ofMillis(200))).as("the read still waits for its read index")
                .isFalse();
            race.release();
            assertThat(gate.awaitDrained(Duration.ofSeconds(5))).as("answered, it leaves the gate").isTrue();
            assertThat(read.get(5, TimeUnit.SECONDS).isSuccess()).isTrue();
        }
    }

    private RaftPeerId follower() throws InterruptedException {
        RaftPeerId leader = race.leader().getId();
        return race.group().getPeers().stream().map(RaftPeer::getId).filter(id -> !id.equals(leader)).findFirst()
            .orElseThrow();
    }
}
