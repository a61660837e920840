package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.client.api.BlockingApi;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.Timestamp;
import org.junit.jupiter.api.Test;

/**
 * {@link RaftBladeClients#send}: a write refused while the leader steps down is sent again as a new call when the
 * refusal met the call's first attempt, and as the same call (same client and call id, following the leader) when it
 * met an attempt that Ratis sent again. A stand-in for Ratis' client plays the attempts, its blocking API consulting
 * the retry policy on the calling thread as Ratis' {@code BlockingImpl} does, its transport answering the replay.
 */
class RaftBladeClientsTest {
    private static final RaftGroupId GROUP = RaftGroupId.randomId();
    private static final RaftPeer N1 = RaftPeer.newBuilder().setId("n1").build();
    private static final RaftPeer N2 = RaftPeer.newBuilder().setId("n2").build();
    private static final RaftClientRequest FIRST_ATTEMPT = RaftClientRequest.newBuilder()
        .setClientId(ClientId.randomId()).setServerId(N1.getId()).setGroupId(GROUP).setCallId(42).setMessage(Message.valueOf("INCREMENT"))
        .setType(RaftClientRequest.writeRequestType()).build();

    /**
     * A client whose blocking calls play {@code calls} in turn, each a list of attempts: "timeout" has the retry policy
     * send {@link #FIRST_ATTEMPT} again, "refused" ends the call with a {@link LeaderSteppingDownException},
     * "replaced" with the {@link AlreadyClosedException} of a connection replaced under it, "client closed" with the
     * one of a closed client, "ok" answers. Its transport answers each request in {@code sent} with the next of {@code replies}: "stepping down",
     * "n2 leads" (a {@code NotLeaderException} naming n2) or "ok".
     */
    private static RaftClient playing(List<List<String>> calls, List<String> played, List<String> replies,
                                      List<RaftClientRequest> sent) {
        RetryPolicy policy = RaftBladeClients.retryPolicy();
        int[] call = {0};
        BlockingApi io = (BlockingApi) Proxy.newProxyInstance(BlockingApi.class.getClassLoader(),
            new Class<?>[] {BlockingApi.class}, (proxy, method, args) -> {
                for (String attempt : calls.get(call[0]++)) {
                    played.add(attempt);
                    switch (attempt) {
                        case "timeout" -> policy.handleAttemptFailure(new ClientRetryEvent(1, FIRST_ATTEMPT, 1,
                            new TimeoutIOException("no answer"), Timestamp.currentTime()));
                        case "refused" -> throw new LeaderSteppingDownException("stepping down");
                        case "replaced" -> throw new AlreadyClosedException("client-7 is already CLOSED");
                        case "client closed" -> throw new AlreadyClosedException("BlockingImpl@1 is closed.");
                        default -> {
                            return reply(FIRST_ATTEMPT, null);
                        }
                    }
                }
                throw new AssertionError("a call without an end");
            });
        RaftClientRpc rpc = (RaftClientRpc) Proxy.newProxyInstance(RaftClientRpc.class.getClassLoader(),
            new Class<?>[] {RaftClientRpc.class}, (proxy, method, args) -> {
                if (!method.getName().equals("sendRequest")) {
                    throw new UnsupportedOperationException(method.getName());
                }
                RaftClientRequest r = (RaftClientRequest) args[0];
                sent.add(r);
                RaftGroupMemberId at = RaftGroupMemberId.valueOf(r.getServerId(), GROUP);
                return switch (replies.get(sent.size() - 1)) {
                    case "stepping down" -> reply(r, new LeaderSteppingDownException(at + " is stepping down"));
                    case "n2 leads" -> reply(r, new NotLeaderException(at, N2, List.of(N1, N2)));
                    default -> reply(r, null);
                };
            });
        return (RaftClient) Proxy.newProxyInstance(RaftClient.class.getClassLoader(),
            new Class<?>[] {RaftClient.class}, (proxy, method, args) -> switch (method.getName()) {
                case "io" -> io;
                case "getClientRpc" -> rpc;
                case "getLeaderId" -> null;
                default -> throw new UnsupportedOperationException(method.getName());
            });
    }

    private static RaftClientReply reply(RaftClientRequest r, RaftException e) {
        RaftClientReply.Builder b = RaftClientReply.newBuilder().setClientId(r.getClientId())
            .setServerId(RaftGroupMemberId.valueOf(r.getServerId(), GROUP)).setCallId(r.getCallId());
        return e == null ? b.setSuccess(true).build() : b.setException(e).build();
    }

    @Test
    void aWriteRefusedAtItsFirstAttemptIsSentAgainAsANewCall() throws Exception {
        List<String> played = new ArrayList<>();
        List<RaftClientRequest> sent = new ArrayList<>();
        RaftClient client = playing(List.of(List.of("refused"), List.of("refused"), List.of("ok")), played, List.of(),
            sent);
        assertThat(RaftBladeClients.send(client, Message.EMPTY).isSuccess()).isTrue();
        assertThat(played).containsExactly("refused", "refused", "ok");
        assertThat(sent).as("no replay: it never reached the log").isEmpty();
    }

    @Test
    void aRefusalOfAResentAttemptSendsTheSameCallAgainFollowingTheLeaderUntilAnswered() throws Exception {
        List<String> played = new ArrayList<>();
        List<RaftClientRequest> sent = new ArrayList<>();
        RaftClient client = playing(List.of(List.of("timeout", "refused")), played,
            List.of("stepping down", "n2 leads", "ok"), sent);
        RaftClientReply reply = RaftBladeClients.send(client, Message.EMPTY);
        assertThat(reply.isSuccess()).isTrue();
        assertThat(played).as("not sent again as a new call").containsExactly("timeout", "refused");
        assertThat(sent).extracting(r -> r.getServerId().toString()).containsExactly("n1", "n1", "n2");
        assertThat(sent).as("the same call each time, so a retry cache can answer it").allSatisfy(r -> {
            assertThat(r.getClientId()).isEqualTo(FIRST_ATTEMPT.getClientId());
            assertThat(r.getCallId()).isEqualTo(FIRST_ATTEMPT.getCallId());
            assertThat(r.getMessage().getContent()).isEqualTo(FIRST_ATTEMPT.getMessage().getContent());
        });
    }

    @Test
    void aResendInAnEarlierCallDoesNotMarkTheNextOne() throws Exception {
        List<String> played = new ArrayList<>();
        List<RaftClientRequest> sent = new ArrayList<>();
        RaftClient client = playing(List.of(List.of("timeout", "ok"), List.of("refused"), List.of("ok")), played,
            List.of(), sent);
        assertThat(RaftBladeClients.send(client, Message.EMPTY).isSuccess()).isTrue();
        assertThat(RaftBladeClients.send(client, Message.EMPTY).isSuccess()).isTrue();
        assertThat(played).containsExactly("timeout", "ok", "refused", "ok");
        assertThat(sent).isEmpty();
    }

    @Test
    void aWriteWhoseConnectionWasReplacedAtItsFirstAttemptIsSentAgainAsANewCall() throws Exception {
        List<String> played = new ArrayList<>();
        List<RaftClientRequest> sent = new ArrayList<>();
        RaftClient client = playing(List.of(List.of("replaced"), List.of("ok")), played, List.of(), sent);
        assertThat(RaftBladeClients.send(client, Message.EMPTY).isSuccess()).isTrue();
        assertThat(played).containsExactly("replaced", "ok");
        assertThat(sent).as("no replay: that attempt was never sent").isEmpty();
    }

    @Test
    void aWriteWhoseConnectionWasReplacedAfterAResendSendsTheSameCallAgain() throws Exception {
        List<String> played = new ArrayList<>();
        List<RaftClientRequest> sent = new ArrayList<>();
        RaftClient client = playing(List.of(List.of("timeout", "replaced")), played, List.of("ok"), sent);
        assertThat(RaftBladeClients.send(client, Message.EMPTY).isSuccess()).isTrue();
        assertThat(sent).as("the earlier attempt may be in the log: the same call").singleElement()
            .satisfies(r -> assertThat(r.getCallId()).isEqualTo(FIRST_ATTEMPT.getCallId()));
    }

    @Test
    void aReadWhoseConnectionWasReplacedIsSentAgain() throws Exception {
        List<String> played = new ArrayList<>();
        RaftClient client = playing(List.of(List.of("replaced"), List.of("replaced"), List.of("ok")), played,
            List.of(), new ArrayList<>());
        assertThat(RaftBladeClients.read(client, Message.EMPTY).isSuccess()).isTrue();
        assertThat(played).containsExactly("replaced", "replaced", "ok");
    }

    @Test
    void aClosedClientFailsAtOnce() {
        RaftClient client = playing(List.of(List.of("client closed"), List.of("client closed")), new ArrayList<>(),
            List.of(), new ArrayList<>());
        assertThatThrownBy(() -> RaftBladeClients.send(client, Message.EMPTY))
            .isInstanceOf(AlreadyClosedException.class).hasMessageContaining("is closed");
        assertThatThrownBy(() -> RaftBladeClients.read(client, Message.EMPTY))
            .isInstanceOf(AlreadyClosedException.class);
    }

    @Test
    void retriesBackOffWithJitterUpToACeiling() {
        Set<Long> firsts = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            long first = RaftBladeClients.retrySleepMillis(1);
            firsts.add(first);
            assertThat(first).isBetween(RaftBladeClients.RETRY_SLEEP_MILLIS / 2, RaftBladeClients.RETRY_SLEEP_MILLIS);
            assertThat(RaftBladeClients.retrySleepMillis(3)).isBetween(20L, 40L);
            assertThat(RaftBladeClients.retrySleepMillis(1_000)).isBetween(RaftBladeClients.MAX_RETRY_SLEEP_MILLIS / 2,
                RaftBladeClients.MAX_RETRY_SLEEP_MILLIS);
        }
        assertThat(firsts).as("drawn at random, so that attempts do not arrive in step").hasSizeGreaterThan(1);
        assertThat(RaftBladeClients.retryPolicy().handleAttemptFailure(() -> 5).shouldRetry()).isTrue();
    }
}
