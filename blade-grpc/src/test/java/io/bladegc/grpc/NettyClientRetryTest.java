package io.bladegc.grpc;

import static io.bladegc.grpc.TestService.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.GcDecision;
import io.bladegc.api.testing.FakeNode;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Over real HTTP/2 (Netty on 127.0.0.1): a stock gRPC client whose service config retries {@code UNAVAILABLE} waits
 * the shed call's pushback, not its own backoff, and then succeeds once the gate is open. A coordinated node sends a
 * first attempt elsewhere at once (pushback 0); its retry, which the client marks, when it comes back to the same
 * node (one connection here, as through a layer-4 proxy) is told the node's hint.
 */
class NettyClientRetryTest {
    private static final long PUSHBACK_MS = 300;
    /** What users put in their client's service config (docs/grpc.md): numbers are doubles, as JSON gives them. */
    private static final Map<String, ?> RETRY_UNAVAILABLE = Map.of("methodConfig", List.of(Map.of(
        "name", List.of(Map.of("service", SimpleServiceGrpc.SERVICE_NAME)),
        "retryPolicy", Map.of(
            "maxAttempts", 3.0,
            "initialBackoff", "0.01s",
            "maxBackoff", "0.05s",
            "backoffMultiplier", 2.0,
            "retryableStatusCodes", List.of("UNAVAILABLE")))));

    private final FakeNode node = new FakeNode(() -> Duration.ofMillis(PUSHBACK_MS));
    /** When each attempt reached the server, in nanoseconds. */
    private final List<Long> attempts = new CopyOnWriteArrayList<>();
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws Exception {
        ServerInterceptor arrivals = new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                              ServerCallHandler<Q, A> next) {
                attempts.add(System.nanoTime());
                return next.startCall(call, headers);
            }
        };
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(new TestService(), new BladeServerInterceptor(node), arrivals))
            .build().start();
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
            .usePlaintext()
            .defaultServiceConfig(RETRY_UNAVAILABLE)
            .enableRetry()
            .build();
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow();
        server.shutdownNow();
        channel.awaitTermination(10, TimeUnit.SECONDS);
        server.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void aShedCallIsRetriedAfterThePushbackAndSucceedsOnceTheGateOpens() throws Exception {
        node.gate().close();
        CompletableFuture<SimpleResponse> call = CompletableFuture.supplyAsync(() -> stub().unaryRpc(request("hello")));
        await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 1);
        node.gate().open();

        assertThat(call.get(10, TimeUnit.SECONDS).getResponseMessage()).isEqualTo("hello");
        assertThat(attempts).hasSize(2);
        assertThat(millisBetweenAttempts(0)).as("the pushback, not the 10 ms backoff")
            .isBetween(PUSHBACK_MS, PUSHBACK_MS + 2_000);
    }

    @Test
    void aClientKeepsToThePushbackUntilItsAttemptsRunOut() {
        node.gate().close();
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
            () -> stub().unaryRpc(request("hello")));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getTrailers().get(BladeServerInterceptor.RETRY_PUSHBACK_MS)).isEqualTo("300");
        assertThat(attempts).hasSize(3);
        assertThat(millisBetweenAttempts(0)).isGreaterThanOrEqualTo(PUSHBACK_MS);
        assertThat(millisBetweenAttempts(1)).isGreaterThanOrEqualTo(PUSHBACK_MS);
    }

    @Test
    void aCoordinatedNodeSendsAFirstAttemptOnAtOnceAndMakesARetryThatCameBackWait() {
        node.register(request -> GcDecision.DEFER);
        node.gate().close();
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
            () -> stub().unaryRpc(request("hello")));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(attempts).hasSize(3);
        assertThat(millisBetweenAttempts(0)).as("pushback 0: the retry went out at once")
            .isLessThan(PUSHBACK_MS);
        assertThat(millisBetweenAttempts(1)).as("the retry, marked grpc-previous-rpc-attempts, waited the hint")
            .isGreaterThanOrEqualTo(PUSHBACK_MS);
    }

    private SimpleServiceGrpc.SimpleServiceBlockingStub stub() {
        return SimpleServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    private long millisBetweenAttempts(int first) {
        return TimeUnit.NANOSECONDS.toMillis(attempts.get(first + 1) - attempts.get(first));
    }
}
