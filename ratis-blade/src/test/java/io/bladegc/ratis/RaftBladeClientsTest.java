package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.client.api.BlockingApi;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicy;
import org.junit.jupiter.api.Test;

/**
 * {@link RaftBladeClients#send}: a write refused while the leader steps down is sent again only when the refusal met
 * the call's first attempt. A stand-in for Ratis' blocking client plays the attempts, consulting the retry policy on
 * the calling thread as Ratis' {@code BlockingImpl} does.
 */
class RaftBladeClientsTest {
    private static final RaftGroupMemberId N1 = RaftGroupMemberId.valueOf(RaftPeerId.valueOf("n1"),
        RaftGroupId.randomId());
    private static final RetryPolicy.Event TIMED_OUT = new RetryPolicy.Event() {
        @Override
        public int getAttemptCount() {
            return 1;
        }

        @Override
        public Throwable getCause() {
            return new TimeoutIOException("no answer");
        }
    };

    /**
     * A blocking API whose calls play {@code calls} in turn: each a list of attempts, where "timeout" has the retry
     * policy send the attempt again, "refused" ends the call with a {@link LeaderSteppingDownException} and "ok"
     * answers.
     */
    private static BlockingApi playing(List<List<String>> calls, List<String> played) {
        RetryPolicy policy = RaftBladeClients.retryPolicy();
        int[] call = {0};
        return (BlockingApi) Proxy.newProxyInstance(BlockingApi.class.getClassLoader(),
            new Class<?>[] {BlockingApi.class}, (proxy, method, args) -> {
                for (String attempt : calls.get(call[0]++)) {
                    played.add(attempt);
                    switch (attempt) {
                        case "timeout" -> policy.handleAttemptFailure(TIMED_OUT);
                        case "refused" -> throw new LeaderSteppingDownException("stepping down");
                        default -> {
                            return RaftClientReply.newBuilder().setClientId(ClientId.randomId()).setServerId(N1)
                                .setCallId(1).setSuccess(true).build();
                        }
                    }
                }
                throw new AssertionError("a call without an end");
            });
    }

    @Test
    void aWriteRefusedAtItsFirstAttemptIsSentAgain() throws Exception {
        List<String> played = new ArrayList<>();
        BlockingApi io = playing(List.of(List.of("refused"), List.of("refused"), List.of("ok")), played);
        assertThat(RaftBladeClients.send(io, Message.EMPTY).isSuccess()).isTrue();
        assertThat(played).containsExactly("refused", "refused", "ok");
    }

    @Test
    void aRefusalOfAResentAttemptIsThrownForTheFirstAttemptMayBeInTheLogAlready() {
        List<String> played = new ArrayList<>();
        BlockingApi io = playing(List.of(List.of("timeout", "refused"), List.of("ok")), played);
        assertThatThrownBy(() -> RaftBladeClients.send(io, Message.EMPTY))
            .isInstanceOf(LeaderSteppingDownException.class);
        assertThat(played).as("not sent again as a new call").containsExactly("timeout", "refused");
    }

    @Test
    void aResendInAnEarlierCallDoesNotMarkTheNextOne() throws Exception {
        List<String> played = new ArrayList<>();
        BlockingApi io = playing(List.of(List.of("timeout", "ok"), List.of("refused"), List.of("ok")), played);
        assertThat(RaftBladeClients.send(io, Message.EMPTY).isSuccess()).isTrue();
        assertThat(RaftBladeClients.send(io, Message.EMPTY).isSuccess()).isTrue();
        assertThat(played).containsExactly("timeout", "ok", "refused", "ok");
    }
}
