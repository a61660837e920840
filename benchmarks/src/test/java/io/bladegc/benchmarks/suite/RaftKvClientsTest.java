package io.bladegc.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.api.AsyncApi;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
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
        for (Throwable cause : new Throwable[] {new NotLeaderException(N1, null, List.of()),
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
            assertThat(action.getSleepTime().toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(RaftKvClients.RESEND_SLEEP.toMillis());
            assertThat(RaftKvClients.isLeaderChange(cause)).isFalse();
        }
    }

    @Test
    void theStoresOwnErrorIsNotSentAgain() {
        assertThat(decide(RaftClientRequest.writeRequestType(), new StateMachineException("bad"), 0).shouldRetry())
            .isFalse();
    }

    /** A client whose calls answer, in turn, with {@code answers} (a Throwable fails the call). */
    private static RaftClient answering(List<Object> answers, List<String> sent) {
        ClientId id = ClientId.randomId();
        AsyncApi async = (AsyncApi) Proxy.newProxyInstance(AsyncApi.class.getClassLoader(),
            new Class<?>[] {AsyncApi.class}, (proxy, method, args) -> {
                sent.add(method.getName());
                Object answer = answers.get(sent.size() - 1);
                return answer instanceof Throwable t ? CompletableFuture.failedFuture(new CompletionException(t))
                    : CompletableFuture.completedFuture(answer);
            });
        return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(),
            new Class<?>[] {RaftClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "getId" -> id;
                case "async" -> async;
                default -> throw new UnsupportedOperationException(method.getName());
            });
    }

    private static RaftClientReply reply(boolean success) {
        return RaftClientReply.newBuilder().setClientId(ClientId.randomId()).setServerId(N1).setCallId(1)
            .setSuccess(success).setException(success ? null : new LeaderSteppingDownException("answered"))
            .build();
    }

    @Test
    void aRefusalRatisAnswersWithIsSentAgainAtOnceAsANewCall() throws Exception {
        List<String> sent = new ArrayList<>();
        List<Throwable> resent = new ArrayList<>();
        RaftClient client = answering(List.of(new LeaderSteppingDownException("stepping down"), reply(false),
            new TransferLeadershipException("transferring"), reply(true)), sent);
        RaftClientReply r = RaftKvClients.call(client, Message.EMPTY, true, (c, why) -> resent.add(why)).get();
        assertThat(r.isSuccess()).isTrue();
        assertThat(sent).containsExactly("send", "send", "send", "send");
        assertThat(resent).hasSize(3).allMatch(RaftKvClients::isLeaderChange);
    }

    @Test
    void anyOtherFailureEndsTheCall() {
        List<String> sent = new ArrayList<>();
        RaftClient client = answering(List.of(new StateMachineException("bad")), sent);
        assertThat(RaftKvClients.call(client, Message.EMPTY, false, (c, why) -> { }))
            .failsWithin(Duration.ofSeconds(1)).withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(StateMachineException.class);
        assertThat(sent).containsExactly("sendReadOnly");
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
