package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Pins a Ratis bug (3.2.2, the version Blade builds against; unchanged in 3.3.0 and on Ratis' main branch of
 * 2026-11) that Blade's agent works around ({@code RatisStepDownReads}, proven by {@link RatisStepDownReadsIT}): a
 * linearizable read still waiting for its ReadIndex heartbeat round when the leader steps down after
 * {@code transferLeadership} is never answered. The client only learns of it at its request timeout
 * ({@code raft.client.rpc.request.timeout}). This test runs without the agent, as Ratis is.
 *
 * <p>How it happens: at step-down, {@code LeaderStateImpl.stop()} fails the waiting ReadIndex listeners with a
 * {@code NotLeaderException}. {@code RaftServerImpl.readException2Reply} turns only state-machine/read exceptions into
 * replies, so the exception goes to {@code GrpcClientProtocolService.RequestStreamObserver.responseError}. That method
 * marks the stream closed, then calls {@code GrpcUtil.wrapException}, which fails because a
 * {@code NotLeaderException} holds {@code RaftPeer}s, which are not {@code Serializable}. So nothing is sent and the
 * server never ends the client's gRPC stream. The two cases below differ only in the client API:
 * <ul>
 *   <li>{@code async().sendReadOnly} (ordered stream, no gRPC deadline): the read times out at the request timeout.
 *       The retry first resets the peer's proxy, and {@code GrpcUtil.shutdownManagedChannel} then waits its hard-coded
 *       3 s for a channel that still holds the dead stream. Only then is the read sent again: request timeout + 3 s
 *       (6 s with the default 3 s). Every other ordered call of that client waits behind it.</li>
 *   <li>{@code io().sendReadOnly} (one gRPC call per request, with a deadline): the call ends at its deadline, so the
 *       channel closes at once, and the read is retried after the request timeout alone.</li>
 * </ul>
 * The race itself is {@link StepDownReadRace}'s.
 *
 * <p><b>Expected to FAIL once Ratis fixes this</b>, for example by turning the {@code NotLeaderException} into a reply
 * in {@code RaftServerImpl.readException2Reply} (what the agent's patch does), or by making
 * {@code GrpcUtil.wrapException} cope with non-serialisable exceptions. The read would then be retried at once, and the
 * stalls asserted here would vanish; the agent's patch can then go.
 */
class RatisStepDownReadsTest {
    /** {@code GrpcUtil.shutdownManagedChannel}: {@code awaitTermination(3, SECONDS)}, hard-coded. */
    private static final long CHANNEL_SHUTDOWN_MILLIS = 3_000;
    private static final long REQUEST_TIMEOUT_MILLIS = StepDownReadRace.REQUEST_TIMEOUT_MILLIS;

    @AutoClose
    private final StepDownReadRace race;

    RatisStepDownReadsTest() throws Exception {
        race = new StepDownReadRace();
    }

    @Test
    void anOrderedAsyncReadPendingAtStepDownWaitsTheRequestTimeoutPlusTheChannelShutdown() throws Exception {
        long took = race.readPendingAtStepDown(c -> c.async().sendReadOnly(Message.valueOf("r"))).sinceSent();
        assertThat(took).as("answered only after the request timeout and GrpcUtil.shutdownManagedChannel's 3 s")
            .isBetween(REQUEST_TIMEOUT_MILLIS + CHANNEL_SHUTDOWN_MILLIS - 100,
                REQUEST_TIMEOUT_MILLIS + CHANNEL_SHUTDOWN_MILLIS + 3_000);
        assertThat(race.retried()).as("the first attempt was retried for its timeout, no answer came")
            .first().isEqualTo(TimeoutIOException.class.getSimpleName());
    }

    @Test
    void aBlockingReadInTheSamePlaceWaitsTheRequestTimeoutOnly() throws Exception {
        long took = race.readPendingAtStepDown(c -> CompletableFuture.supplyAsync(() -> {
            try {
                return c.io().sendReadOnly(Message.valueOf("r"));
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        })).sinceSent();
        assertThat(took).as("answered after the request timeout: the call's deadline ends it, no channel shutdown")
            .isBetween(REQUEST_TIMEOUT_MILLIS - 100, REQUEST_TIMEOUT_MILLIS + CHANNEL_SHUTDOWN_MILLIS - 1_000);
        assertThat(race.retried()).as("the first attempt was retried for its timeout, no answer came")
            .first().isEqualTo(TimeoutIOException.class.getSimpleName());
    }
}
