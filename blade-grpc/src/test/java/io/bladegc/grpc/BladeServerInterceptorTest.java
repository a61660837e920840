package io.bladegc.grpc;

import static io.bladegc.grpc.TestService.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.GcDecision;
import io.bladegc.api.Gate;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The interceptor in GCI mode (it starts the node) in front of an in-process server and a generated stub. */
class BladeServerInterceptorTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final TestService service = new TestService();
    private BladeServerInterceptor blade;
    private BladeNode node;
    private InProcessServer server;

    @BeforeEach
    void start() throws Exception {
        assertThat(Blade.node()).as("no Blade node before the interceptor starts").isEmpty();
        blade = BladeServerInterceptor.start(BladeOptions.defaults());
        node = Blade.node().orElseThrow();
        // the tests drive the gate: the node's own drains (close, drain, collect, open) stay out; with a handler the
        // node counts as coordinated, so a shed call's pushback is 0 (RetryPushbackTest has the single-node hint)
        node.register(request -> GcDecision.DEFER);
        await().during(Duration.ofMillis(100)).atMost(WAIT).until(node.gate()::isOpen);
        server = new InProcessServer(service, blade);
    }

    @AfterEach
    void stop() throws Exception {
        service.release.countDown();
        try {
            server.close();
            blade.close();
        } finally {
            Blade.stopNode();
        }
    }

    @Test
    void startsANodeInGciModeWhenThereIsNone() {
        assertThat(blade.isPassThrough()).isFalse();
        assertThat(blade.isGateOpen()).isTrue();
        node.gate().close();
        assertThat(blade.isGateOpen()).as("the gate of the node Blade.node() finds").isFalse();
        node.gate().open();
    }

    @Test
    void anOpenGateServesAndCountsTheCallUntilItCompletes() throws Exception {
        Future<SimpleResponse> call = server.future().unaryRpc(request("block"));
        assertThat(service.entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(blade.inFlight()).isEqualTo(1);

        service.release.countDown();
        assertThat(call.get(10, TimeUnit.SECONDS).getResponseMessage()).isEqualTo("hello");
        await().atMost(WAIT).until(() -> blade.inFlight() == 0);
        assertThat(blade.shedCount()).isZero();
    }

    @Test
    void aClosedGateShedsWithUnavailableAndARetryPushback() {
        node.gate().close();

        Metadata trailers = new Metadata();
        assertThatThrownBy(() -> server.blocking().unaryRpc(request("hello")))
            .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                assertThat(e.getStatus().getDescription()).isEqualTo("Blade: collecting garbage; retry on another "
                    + "backend");
                trailers.merge(e.getTrailers());
            });
        assertThat(trailers.get(BladeServerInterceptor.RETRY_PUSHBACK_MS)).isEqualTo("0");
        assertThat(service.started).as("the handler never saw it").hasValue(0);
        assertThat(blade.shedCount()).isEqualTo(1);
        assertThat(blade.inFlight()).isZero();

        node.gate().open();
        assertThat(server.blocking().unaryRpc(request("hello")).getResponseMessage()).isEqualTo("hello");
    }

    /** The handler closes the call with an error ({@code error}), or throws ({@code throw}: gRPC closes it). */
    @ParameterizedTest
    @CsvSource({"error, INTERNAL", "throw, UNKNOWN"})
    void aCallThatFailsInItsHandlerLeavesTheGate(String handler, Status.Code code) {
        assertThatThrownBy(() -> server.blocking().unaryRpc(request(handler)))
            .isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
        await().atMost(WAIT).until(() -> blade.inFlight() == 0);
    }

    @Test
    void aCallWhoseStartThrowsLeavesTheGate() throws Exception {
        ServerInterceptor throwing = new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                              ServerCallHandler<Q, A> next) {
                throw new IllegalStateException("startCall threw");
            }
        };
        try (InProcessServer failing = new InProcessServer(service, throwing, blade)) {
            assertThatThrownBy(() -> failing.blocking().unaryRpc(request("hello")))
                .isInstanceOf(StatusRuntimeException.class);
            await().atMost(WAIT).until(() -> blade.inFlight() == 0);
        }
    }

    @Test
    void aCancelledCallStaysInFlightUntilItsHandlerReturns() throws Exception {
        Future<SimpleResponse> call = server.future().unaryRpc(request("block"));
        assertThat(service.entered.await(10, TimeUnit.SECONDS)).isTrue();
        call.cancel(true);
        Thread.sleep(100);
        assertThat(blade.inFlight()).as("the handler still runs").isEqualTo(1);

        service.release.countDown();
        await().atMost(WAIT).until(() -> blade.inFlight() == 0);
    }

    @Test
    void aServerStreamingCallIsCountedOnceAndTheDrainWaitsForItsEnd() throws Exception {
        List<String> received = new CopyOnWriteArrayList<>();
        CompletableFuture<Status> streamEnd = new CompletableFuture<>();
        server.async().serverStreamingRpc(request("stream"), new StreamObserver<>() {
            @Override
            public void onNext(SimpleResponse value) {
                received.add(value.getResponseMessage());
            }

            @Override
            public void onError(Throwable t) {
                streamEnd.complete(Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
                streamEnd.complete(Status.OK);
            }
        });
        await().atMost(WAIT).until(() -> received.contains("first"));
        assertThat(blade.inFlight()).isEqualTo(1);

        Gate gate = node.gate();
        gate.close();
        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> gate.awaitDrained(WAIT));
        assertThatThrownBy(() -> server.blocking().unaryRpc(request("hello")))
            .isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        Thread.sleep(200);
        assertThat(drained).as("the drain waits for the stream").isNotDone();
        assertThat(blade.inFlight()).isEqualTo(1);

        service.release.countDown();
        assertThat(streamEnd.get(10, TimeUnit.SECONDS)).as("never cut").isEqualTo(Status.OK);
        assertThat(received).containsExactly("first", "second");
        assertThat(drained.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(blade.inFlight()).isZero();
        gate.open();
    }

    @Test
    void noDrainedGateHasAHandlerRunningWhileManyCallsRaceClosesAndOpens() throws Exception {
        Gate gate = node.gate();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger drains = new AtomicInteger();
        AtomicInteger handlersInsideDrain = new AtomicInteger();
        CompletableFuture<Void> controller = CompletableFuture.runAsync(() -> {
            while (!stop.get()) {
                gate.close();
                if (gate.awaitDrained(WAIT)) {
                    drains.incrementAndGet();
                    handlersInsideDrain.addAndGet(service.running.get());
                }
                gate.open();
                Thread.onSpinWait();
            }
        });
        int threads = 4;
        int callsEach = 300;
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger unavailable = new AtomicInteger();
        AtomicInteger badPushback = new AtomicInteger();
        ExecutorService clients = Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                clients.submit(() -> {
                    for (int i = 0; i < callsEach; i++) {
                        try {
                            server.blocking().unaryRpc(request("hello"));
                            ok.incrementAndGet();
                        } catch (StatusRuntimeException e) {
                            if (e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
                                unavailable.incrementAndGet();
                                String pushback = e.getTrailers().get(BladeServerInterceptor.RETRY_PUSHBACK_MS);
                                if (pushback == null || !pushback.matches("[0-9]+")) {
                                    badPushback.incrementAndGet();
                                }
                            }
                        }
                    }
                });
            }
        } finally {
            clients.shutdown();
            assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            stop.set(true);
            controller.get(10, TimeUnit.SECONDS);
        }
        assertThat(ok.get() + unavailable.get()).as("every call served or shed").isEqualTo(threads * callsEach);
        assertThat(blade.shedCount()).isEqualTo(unavailable.get());
        assertThat(badPushback).hasValue(0);
        assertThat(drains.get()).isPositive();
        assertThat(handlersInsideDrain).as("a drained gate has no handler inside").hasValue(0);
        await().atMost(WAIT).until(() -> blade.inFlight() == 0);
    }

    @Test
    void closedInterceptorDetachesAndPassesCallsThrough() {
        blade.close();
        node.gate().close();
        assertThat(blade.isPassThrough()).isTrue();
        assertThat(server.blocking().unaryRpc(request("hello")).getResponseMessage()).isEqualTo("hello");
        assertThat(node.gate().inFlight()).isZero();
        node.gate().open();
    }
}
