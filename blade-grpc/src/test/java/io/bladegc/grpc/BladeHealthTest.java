package io.bladegc.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.testing.FakeNode;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The gate's state over {@code grpc.health.v1.Health}: what a health-checking proxy sees. */
class BladeHealthTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String SIMPLE_SERVICE = "grpc.testing.SimpleService";

    private final FakeNode node = new FakeNode(() -> Duration.ofMillis(20));
    private final BladeServerInterceptor blade = new BladeServerInterceptor(node);
    private final HealthStatusManager health = new HealthStatusManager();
    private InProcessServer server;
    private BladeHealth published;

    @BeforeEach
    void start() throws Exception {
        // the health service itself is not gated: a probe reaches it while the node drains
        server = new InProcessServer(List.of(ServerInterceptors.intercept(new TestService(), blade),
            health.getHealthService().bindService()));
    }

    @AfterEach
    void stop() {
        if (published != null) {
            published.close();
        }
        server.close();
    }

    @Test
    void notServingWhileTheGateIsClosedServingWhenItOpens() {
        published = BladeHealth.start(health, blade);
        assertThat(check("")).isEqualTo(ServingStatus.SERVING);
        node.gate().close();
        await().atMost(WAIT).until(() -> check("") == ServingStatus.NOT_SERVING);
        node.gate().open();
        await().atMost(WAIT).until(() -> check("") == ServingStatus.SERVING);
    }

    @Test
    void aWatchingProxyIsToldOfEachChange() {
        List<ServingStatus> seen = new CopyOnWriteArrayList<>();
        published = BladeHealth.start(health, blade);
        HealthGrpc.newStub(server.channel).watch(HealthCheckRequest.getDefaultInstance(), new StreamObserver<>() {
            @Override
            public void onNext(HealthCheckResponse value) {
                seen.add(value.getStatus());
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
            }
        });
        await().atMost(WAIT).until(() -> seen.equals(List.of(ServingStatus.SERVING)));
        node.gate().close();
        await().atMost(WAIT).until(() -> seen.size() == 2);
        node.gate().open();
        await().atMost(WAIT).until(() -> seen.size() == 3);
        assertThat(seen).containsExactly(ServingStatus.SERVING, ServingStatus.NOT_SERVING, ServingStatus.SERVING);
    }

    @Test
    void namedServicesAreBladesAndTheOthersStayTheApplications() {
        health.setStatus("app.Other", ServingStatus.SERVING);
        published = BladeHealth.start(health, blade, SIMPLE_SERVICE);
        node.gate().close();
        await().atMost(WAIT).until(() -> check(SIMPLE_SERVICE) == ServingStatus.NOT_SERVING);
        assertThat(check("")).as("the server's status, the application's").isEqualTo(ServingStatus.SERVING);
        assertThat(check("app.Other")).isEqualTo(ServingStatus.SERVING);
        node.gate().open();
    }

    @Test
    void theDrainLastsUntilWatchersWereToldNotServingAndThenSomeMore() {
        published = BladeHealth.start(health, blade);
        await().atMost(WAIT).until(() -> node.gate().inFlight() == 1); // the publisher's hold on the next drain
        long closedAt = System.nanoTime();
        node.gate().close();
        assertThat(node.gate().awaitDrained(WAIT)).isTrue();
        long drainedAfterNanos = System.nanoTime() - closedAt;
        assertThat(check("")).as("published before the drain ended").isEqualTo(ServingStatus.NOT_SERVING);
        assertThat(drainedAfterNanos).as("the drain's length, ns")
            .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(BladeHealth.ANNOUNCE_MILLIS));
        node.gate().open();
        await().atMost(WAIT).until(() -> node.gate().inFlight() == 1);
        published.close();
        assertThat(node.gate().inFlight()).as("a closed publisher holds no drain").isZero();
    }

    @Test
    void aPassThroughInterceptorIsAlwaysServing() throws Exception {
        BladeServerInterceptor passThrough = new BladeServerInterceptor(null);
        published = BladeHealth.start(health, passThrough);
        node.gate().close();
        Thread.sleep(10 * BladeHealth.POLL_MILLIS);
        assertThat(check("")).isEqualTo(ServingStatus.SERVING);
    }

    @Test
    void afterCloseTheStatusStaysAsItLastWas() throws Exception {
        BladeHealth h = BladeHealth.start(health, blade);
        h.close();
        node.gate().close();
        Thread.sleep(10 * BladeHealth.POLL_MILLIS);
        assertThat(check("")).isEqualTo(ServingStatus.SERVING);
    }

    private ServingStatus check(String service) {
        try {
            return HealthGrpc.newBlockingStub(server.channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
        } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            return ServingStatus.SERVICE_UNKNOWN;
        }
    }
}
