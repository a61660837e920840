package io.bladegc.benchmarks.suite.raftkv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.api.BlockingApi;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.junit.jupiter.api.Test;

class RaftKvClientsTest {
    private static final RaftGroupMemberId N1 = RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n1"),
        RaftGroupId.randomId());

    /** A client whose blocking calls answer, in turn, with {@code answers} (a Throwable is thrown). */
    private static RaftClient answering(List<Object> answers, List<String> sent) {
        BlockingApi io = (BlockingApi) Proxy.newProxyInstance(BlockingApi.class.getClassLoader(),
            new Class<?>[] {BlockingApi.class}, (proxy, method, args) -> {
                sent.add(method.getName());
                Object answer = answers.get(sent.size() - 1);
                if (answer instanceof Throwable t) {
                    throw t;
                }
                return answer;
            });
        return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(),
            new Class<?>[] {RaftClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "getId" -> ClientId.randomId();
                case "io" -> io;
                default -> throw new UnsupportedOperationException(method.getName());
            });
    }

    private static RaftClientReply reply() {
        return RaftClientReply.newBuilder().setClientId(ClientId.randomId()).setServerId(N1).setCallId(1)
            .setSuccess(true).build();
    }

    @Test
    void aWriteRefusedWhileTheLeaderStepsDownIsSentAgain() throws Exception {
        List<String> sent = new ArrayList<>();
        RaftClient client = answering(List.of(new LeaderSteppingDownException("stepping down"),
            new LeaderSteppingDownException("still"), reply()), sent);
        assertThat(RaftKvClients.send(client, Message.EMPTY, true).isSuccess()).isTrue();
        assertThat(sent).containsExactly("send", "send", "send");
    }

    @Test
    void aReadIsOneBlockingCallAndItsFailureEndsIt() {
        List<String> sent = new ArrayList<>();
        RaftClient client = answering(List.of(new StateMachineException("bad")), sent);
        assertThat(RaftKvClients.call(() -> RaftKvClients.send(client, Message.EMPTY, false)))
            .failsWithin(Duration.ofSeconds(1))
            .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(UncheckedIOException.class)
            .havingCause().withCauseInstanceOf(StateMachineException.class);
        assertThat(sent).containsExactly("sendReadOnly");
    }

    @Test
    void theRefusalsTheRetryPolicySeesWhenLeadershipMovesAreCountedAsSuch() {
        assertThat(RaftKvClients.isLeaderChange(new NotLeaderException(N1, null, List.of()))).isTrue();
        assertThat(RaftKvClients.isLeaderChange(new LeaderNotReadyException(N1))).isTrue();
        assertThat(RaftKvClients.isLeaderChange(null)).as("the blocking API's redirect").isTrue();
        assertThat(RaftKvClients.isLeaderChange(new StateMachineException("bad"))).isFalse();
        assertThat(RaftKvClients.isLeaderChange(new TimeoutIOException("attempt timed out"))).isFalse();
    }
}
