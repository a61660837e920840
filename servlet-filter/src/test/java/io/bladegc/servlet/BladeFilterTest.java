package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The filter in GCI mode behind a real Jetty: it starts the node, counts, sheds and answers readiness. */
class BladeFilterTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final BladeFilter filter = new BladeFilter();
    private final TestServlets.Blocking blocking = new TestServlets.Blocking();
    private final TestServlets.LateAsync lateAsync = new TestServlets.LateAsync();
    private final TestServlets.RestartedAsync restartedAsync = new TestServlets.RestartedAsync();
    private final TestServlets.Probe probe = new TestServlets.Probe(filter::inFlight);
    private final TestServlets.CollectsDuringRequest collects =
        new TestServlets.CollectsDuringRequest(() -> this.node.pauseNanos());
    private JettyApp app;
    private BladeNode node;

    @BeforeEach
    void start() throws Exception {
        assertThat(Blade.node()).as("no Blade node before the filter starts").isEmpty();
        ServletContextHandler context = JettyApp.context(JettyApp.CONTEXT, filter, Map.of(BladeFilter.GC_OVERLAP_PARAM, "true"));
        JettyApp.servlet(context, "/hello", new TestServlets.Hello());
        JettyApp.servlet(context, "/slow", blocking);
        JettyApp.servlet(context, "/async-late", lateAsync);
        JettyApp.servlet(context, "/async-restart", restartedAsync);
        JettyApp.servlet(context, "/async-timeout", new TestServlets.AsyncTimeout());
        JettyApp.servlet(context, "/async-dispatch", new TestServlets.DispatchedAsync());
        JettyApp.servlet(context, "/async-early", new TestServlets.CompletesBeforeReturn());
        JettyApp.servlet(context, "/async-throw", new TestServlets.AsyncThenThrow());
        JettyApp.servlet(context, "/throw", new TestServlets.Throwing());
        JettyApp.servlet(context, "/forward", new TestServlets.Forwarding());
        JettyApp.servlet(context, "/include", new TestServlets.Including());
        JettyApp.servlet(context, "/probe", probe);
        JettyApp.servlet(context, "/gc", collects);
        app = JettyApp.start(context);
        node = QuietNode.quiet(Blade.node().orElseThrow());
    }

    @AfterEach
    void stop() throws Exception {
        blocking.release.countDown();
        lateAsync.release.countDown();
        restartedAsync.release.countDown();
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            Blade.stopNode();
        }
    }

    @Test
    void startsANodeInGciModeWhenThereIsNone() {
        assertThat(filter.isPassThrough()).isFalse();
        assertThat(node.gate()).isNotNull();
        assertThat(filter.isGateOpen()).isTrue();
        assertThat(filter.inFlight()).isZero();
    }

    @Test
    void openGateServesAndReadinessSaysReady() throws Exception {
        HttpResponse<String> hello = app.get("/app/hello");
        assertThat(hello.statusCode()).isEqualTo(200);
        assertThat(hello.body()).isEqualTo("hello");
        await().atMost(WAIT).until(() -> filter.gcOverlap().snapshot().requests() == 1);

        HttpResponse<String> ready = app.get("/app/blade/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("ready");
        assertThat(filter.gcOverlap().snapshot().requests()).as("readiness is not a request").isEqualTo(1);
    }

    @Test
    void closedGateShedsWith503AndRetryAfterAndReadinessSaysDraining() throws Exception {
        node.gate().close();

        HttpResponse<String> shed = app.get("/app/hello");
        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(shed.headers().firstValue("Retry-After")).hasValueSatisfying(v -> {
            assertThat(v).matches("[0-9]+");
            assertThat(Long.parseLong(v)).isGreaterThanOrEqualTo(1);
        });
        assertThat(shed.headers().firstValue(BladeFilter.RETRY_AFTER_MS_HEADER)).hasValueSatisfying(v -> {
            assertThat(v).matches("[0-9]+");
            assertThat(Long.parseLong(v)).isGreaterThanOrEqualTo(1);
        });
        assertThat(filter.shedCount()).isEqualTo(1);
        assertThat(filter.inFlight()).isZero();

        HttpResponse<String> draining = app.get("/app/blade/ready");
        assertThat(draining.statusCode()).isEqualTo(503);
        assertThat(draining.body()).isEqualTo("draining");
        assertThat(draining.headers().firstValue("Retry-After")).isPresent();
        assertThat(filter.shedCount()).as("readiness is never shed").isEqualTo(1);

        node.gate().open();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        assertThat(app.get("/app/blade/ready").statusCode()).isEqualTo(200);
    }

    @Test
    void admittedSlowRequestSurvivesGateCloseWhileNewOnesAreShed() throws Exception {
        CompletableFuture<HttpResponse<String>> slow = app.getAsync("/app/slow");
        TestServlets.await(blocking.entered);
        assertThat(filter.inFlight()).isEqualTo(1);

        node.gate().close();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(503);
        assertThat(node.gate().awaitDrained(Duration.ofMillis(50))).as("the trailer is still running").isFalse();

        blocking.release.countDown();
        HttpResponse<String> done = slow.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(done.statusCode()).isEqualTo(200);
        assertThat(done.body()).isEqualTo("slow done");
        assertThat(node.gate().awaitDrained(WAIT)).isTrue();
        assertThat(filter.inFlight()).isZero();
        assertThat(filter.shedCount()).isEqualTo(1);
    }

    @Test
    void asyncRequestCompletedLateByAnotherThreadStaysInFlightUntilItCompletes() throws Exception {
        CompletableFuture<HttpResponse<String>> late = app.getAsync("/app/async-late");
        TestServlets.await(lateAsync.dispatchReturned);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> filter.inFlight() == 1);

        node.gate().close();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(503);
        lateAsync.release.countDown();

        HttpResponse<String> done = late.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(done.statusCode()).isEqualTo(200);
        assertThat(done.body()).isEqualTo("late");
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requestsSlowerThan(Duration.ofMillis(200))).isEqualTo(1);
    }

    @Test
    void asyncRequestRestartedInAnAsyncDispatchIsFollowedToItsEnd() throws Exception {
        CompletableFuture<HttpResponse<String>> response = app.getAsync("/app/async-restart");
        TestServlets.await(restartedAsync.secondCycle);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> filter.inFlight() == 1);

        restartedAsync.release.countDown();
        assertThat(response.get(WAIT.toSeconds(), TimeUnit.SECONDS).body()).isEqualTo("second cycle");
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).as("counted once").isEqualTo(1);
    }

    @Test
    void asyncDispatchAnsweredSynchronouslyLeavesOnce() throws Exception {
        HttpResponse<String> dispatched = app.get("/app/async-dispatch");
        assertThat(dispatched.body()).isEqualTo("dispatched");
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isEqualTo(1);
    }

    @Test
    void asyncTimeoutReturnsInFlightToZero() throws Exception {
        HttpResponse<String> timedOut = app.get("/app/async-timeout");
        assertThat(timedOut.statusCode()).isEqualTo(500);
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isEqualTo(1);
    }

    @Test
    void asyncCompletedBeforeTheDispatchReturnsLeavesOnce() throws Exception {
        assertThat(app.get("/app/async-early").statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isEqualTo(1);
    }

    @Test
    void asyncStartedThenThrownLeavesOnce() throws Exception {
        assertThat(app.get("/app/async-throw").statusCode()).isEqualTo(500);
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isEqualTo(1);
    }

    @Test
    void forwardIsCountedOnce() throws Exception {
        HttpResponse<String> forwarded = app.get("/app/forward");
        assertThat(forwarded.statusCode()).isEqualTo(200);
        assertThat(probe.seen.get()).isEqualTo(1);
        await().atMost(WAIT).until(() -> filter.inFlight() == 0); // the client may see the end before the filter
        assertThat(filter.gcOverlap().snapshot().requests()).isEqualTo(1);
    }

    @Test
    void includeIsCountedOnce() throws Exception {
        HttpResponse<String> included = app.get("/app/include");
        assertThat(included.statusCode()).isEqualTo(200);
        assertThat(included.body()).isEqualTo("in flight 1, admitted true;in flight 1, admitted true;");
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isEqualTo(1);
    }

    @Test
    void throwingChainLeavesTheGate() throws Exception {
        assertThat(app.get("/app/throw").statusCode()).isEqualTo(500);
        await().atMost(WAIT).until(() -> node.gate().inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isEqualTo(1);
    }

    @Test
    void requestDuringACollectionIsChargedItsPause() throws Exception {
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        assertThat(app.get("/app/gc").statusCode()).isEqualTo(200);
        assumeTrue(collects.pauseSeen.get(), "this collector's pauses are too short for GC notifications to show");

        await().atMost(WAIT).until(() -> filter.gcOverlap().snapshot().requests() == 2);
        GcOverlapSnapshot s = filter.gcOverlap().snapshot();
        assertThat(s.requestsWithGcOverlap()).as("the /gc request, maybe /hello too if the JVM collected")
            .isBetween(1L, 2L);
        assertThat(s.totalGcOverlap()).isPositive();
        assertThat(s.gcOverlapShare(Duration.ZERO)).isGreaterThanOrEqualTo(0.5);
    }
}
