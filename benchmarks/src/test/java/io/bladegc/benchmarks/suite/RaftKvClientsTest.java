package io.bladegc.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.protocol.exceptions.TransferLeadershipException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;
import org.apache.ratis.util.Timestamp;
import org.junit.jupiter.api.Test;

class RaftKvClientsTest {
    private static final RaftGroupMemberId N1 = RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n1"),
        RaftGroupId.randomId());

    private static RetryPolicy.Action decide(RaftClientRequest.Type type, Throwable cause, long ageMillis) {
        RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(ClientId.randomId())
            .setServerId(N1.getPeerId()).setGroupId(N1.getGroupId()).setCallId(1).setMessage(Message.EMPTY)
            .setType(type).build();
        return RaftKvClients.retryPolicy().handleAttemptFailure(new ClientRetryEvent(1_000, request, 1_000, cause,
            Timestamp.currentTime().addTimeMs(-ageMillis)));
    }

    @Test
    void aRefusalBecauseLeadershipMovesIsSentAgainAtOnce() {
        for (Throwable cause : new Throwable[] {new NotLeaderException(N1, null, java.util.List.of()),
            new LeaderSteppingDownException("stepping down"), new TransferLeadershipException("transferring"),
            new LeaderNotReadyException(N1)}) {
            for (RaftClientRequest.Type type : new RaftClientRequest.Type[] {RaftClientRequest.writeRequestType(),
                RaftClientRequest.readRequestType()}) {
                RetryPolicy.Action action = decide(type, cause, 9_000);
                assertThat(action.shouldRetry()).as(cause.getClass().getSimpleName()).isTrue();
                assertThat(action.getSleepTime()).isEqualTo(TimeDuration.ZERO);
                assertThat(RaftKvClients.isLeaderChange(cause)).isTrue();
            }
        }
    }

    @Test
    void anyOtherFailedAttemptIsSentAgainAfterAPause() {
        for (Throwable cause : new Throwable[] {new TimeoutIOException("no answer"), new IOException("reset")}) {
            RetryPolicy.Action action = decide(RaftClientRequest.readRequestType(), cause, 0);
            assertThat(action.shouldRetry()).isTrue();
            assertThat(action.getSleepTime().toLong(java.util.concurrent.TimeUnit.MILLISECONDS))
                .isEqualTo(RaftKvClients.RESEND_SLEEP.toMillis());
            assertThat(RaftKvClients.isLeaderChange(cause)).isFalse();
        }
    }

    @Test
    void theStoresOwnErrorIsNotSentAgain() {
        assertThat(decide(RaftClientRequest.writeRequestType(), new StateMachineException("bad"), 0).shouldRetry())
            .isFalse();
    }

    @Test
    void nothingIsSentAgainAfterTheDeadline() {
        long late = RaftKvClients.DEADLINE.toMillis() + 100;
        assertThat(decide(RaftClientRequest.writeRequestType(), new LeaderSteppingDownException("x"), late)
            .shouldRetry()).isFalse();
        assertThat(decide(RaftClientRequest.readRequestType(), new TimeoutIOException("x"), late).shouldRetry())
            .isFalse();
    }
}
