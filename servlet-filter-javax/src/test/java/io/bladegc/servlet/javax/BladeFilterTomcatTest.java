package io.bladegc.servlet.javax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The javax filter in a real embedded Tomcat 9, in GCI mode: it starts the node, counts (async too), sheds with
 * {@code Retry-After}, answers readiness, registers its meters, and counts a request once through forwards, includes
 * and a second Blade filter. The gate is closed and opened by the test through the node.
 */
class BladeFilterTomcatTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final BladeFilter filter = new BladeFilter(registry);
    private final BladeFilter inner = new BladeFilter();
    private final TestServlets.Blocking blocking = new TestServlets.Blocking();
    private final TestServlets.LateAsync lateAsync = new TestServlets.LateAsync();
    private TomcatApp app;
    private BladeNode node;

    @BeforeEach
    void start() throws Exception {
        assertThat(Blade.node()).as("no Blade node before the filter starts").isEmpty();
        Map<String, String> timed = Map.of(BladeFilter.GC_OVERLAP_PARAM, "true");
        TestServlets.Probe probe = new TestServlets.Probe(filter::inFlight);
        app = new TomcatApp()
            .filter("blade", filter, "/*", timed)
            .filter("blade-inner", inner, "/nested/*", timed)
            .servlet("/hello", new TestServlets.Hello())
            .servlet("/slow", blocking)
            .servlet("/async-late", lateAsync)
            .servlet("/forward", new TestServlets.Forwarding())
            .servlet("/include", new TestServlets.Including())
            .servlet("/probe", probe)
            .servlet("/nested/probe", probe)
            .start();
        node = quiet(Blade.node().orElseThrow());
    }

    /**
     * Keeps the node's own drains out of the test: the node the filter started arms its default handler (close,
     * drain, collect, open), so the test installs one that always defers and lets a drain already under way end.
     */
    private static BladeNode quiet(BladeNode node) {
        node.register(request -> GcDecision.DEFER);
        await().during(Duration.ofMillis(100)).atMost(WAIT).until(node.gate()::isOpen);
        return node;
    }

    @AfterEach
    void stop() {
        blocking.release.countDown();
        lateAsync.release.countDown();
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            Blade.stopNode();
        }
    }

    @Test
    void runsWithoutTheJakartaServletApi() throws Exception {
        assertThatThrownBy(() -> Class.forName("jakarta.servlet.Filter"))
            .as("the core reached through blade-servlet-filter must not need it")
            .isInstanceOf(ClassNotFoundException.class);
        assertThat(filter.isPassThrough()).isFalse();
        HttpResponse<String> hello = app.get("/app/hello");
        assertThat(hello.statusCode()).isEqualTo(200);
        assertThat(hello.body()).isEqualTo("hello");
        HttpResponse<String> ready = app.get("/app/blade/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("ready");
        await().atMost(WAIT).until(() -> filter.gcOverlap().snapshot().requests() == 1);
    }

    @Test
    void admittedRequestCompletesWhileNewOnesGet503WithRetryAfter() throws Exception {
        CompletableFuture<HttpResponse<String>> slow = app.getAsync("/app/slow");
        TestServlets.await(blocking.entered);
        assertThat(filter.inFlight()).isEqualTo(1);

        node.gate().close();
        HttpResponse<String> shed = app.get("/app/hello");
        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(shed.body()).isEqualTo("draining");
        assertThat(shed.headers().firstValue("Retry-After")).hasValueSatisfying(v -> {
            assertThat(v).matches("[0-9]+");
            assertThat(Long.parseLong(v)).isGreaterThanOrEqualTo(1);
        });
        assertThat(shed.headers().firstValue(BladeFilter.RETRY_AFTER_MS_HEADER)).hasValueSatisfying(v -> {
            assertThat(v).matches("[0-9]+");
            assertThat(Long.parseLong(v)).isGreaterThanOrEqualTo(1);
        });
        HttpResponse<String> draining = app.get("/app/blade/ready");
        assertThat(draining.statusCode()).isEqualTo(503);
        assertThat(draining.body()).isEqualTo("draining");
        assertThat(draining.headers().firstValue("Retry-After")).isPresent();
        assertThat(node.gate().awaitDrained(Duration.ofMillis(50))).as("the admitted request is still running")
            .isFalse();

        blocking.release.countDown();
        HttpResponse<String> done = slow.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(done.statusCode()).as("not cut off").isEqualTo(200);
        assertThat(done.body()).isEqualTo("slow done");
        assertThat(node.gate().awaitDrained(WAIT)).isTrue();
        assertThat(filter.shedCount()).as("readiness is never shed").isEqualTo(1);

        node.gate().open();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        assertThat(app.get("/app/blade/ready").statusCode()).isEqualTo(200);
    }

    @Test
    void asyncRequestCountsAsInFlightUntilItsAsyncCycleCompletes() throws Exception {
        CompletableFuture<HttpResponse<String>> late = app.getAsync("/app/async-late");
        TestServlets.await(lateAsync.dispatchReturned);
        await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> filter.inFlight() == 1);

        node.gate().close();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(503);
        assertThat(node.gate().awaitDrained(Duration.ofMillis(50))).as("the async request is still running")
            .isFalse();
        lateAsync.release.countDown();

        HttpResponse<String> done = late.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(done.statusCode()).isEqualTo(200);
        assertThat(done.body()).isEqualTo("late");
        assertThat(node.gate().awaitDrained(WAIT)).isTrue();
        assertThat(filter.gcOverlap().snapshot().requestsSlowerThan(Duration.ofMillis(200))).isEqualTo(1);
    }

    @Test
    void forwardAndIncludeAreCountedOnce() throws Exception {
        HttpResponse<String> forwarded = app.get("/app/forward");
        assertThat(forwarded.statusCode()).isEqualTo(200);
        assertThat(forwarded.body()).isEqualTo("in flight 1, admitted true;");
        await().atMost(WAIT).until(() -> filter.inFlight() == 0); // the client may see the end before the filter

        HttpResponse<String> included = app.get("/app/include");
        assertThat(included.statusCode()).isEqualTo(200);
        assertThat(included.body()).isEqualTo("in flight 1, admitted true;in flight 1, admitted true;");
        await().atMost(WAIT).until(() -> filter.gcOverlap().snapshot().requests() == 2);
        assertThat(filter.inFlight()).isZero();
    }

    @Test
    void twoBladeFiltersInOneChainCountAndShedARequestOnce() throws Exception {
        assertThat(inner.isPassThrough()).isFalse();
        HttpResponse<String> nested = app.get("/app/nested/probe");
        assertThat(nested.body()).isEqualTo("in flight 1, admitted true;");
        await().atMost(WAIT).until(() -> filter.gcOverlap().snapshot().requests() == 1);
        assertThat(inner.gcOverlap().snapshot().requests()).as("the inner filter passed it on").isZero();

        node.gate().close();
        assertThat(app.get("/app/nested/probe").statusCode()).isEqualTo(503);
        assertThat(filter.shedCount()).isEqualTo(1);
        assertThat(inner.shedCount()).isZero();
        node.gate().open();
        assertThat(app.get("/app/nested/probe").statusCode()).isEqualTo(200);
    }

    @Test
    void metersAppearInTheRegistryAndGoWithTheFilter() throws Exception {
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        await().atMost(WAIT).until(() -> filter.inFlight() == 0);
        assertThat(registry.get("blade.gate.open").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("blade.gate.inflight").gauge().value()).isEqualTo(0.0);
        assertThat(registry.get("blade.gate.shed").functionCounter().count()).isEqualTo(0.0);
        assertThat(registry.get("blade.request.gc.overlap").timer().count()).isZero();
        assertThat(registry.find("blade.request.gc.share").gauges()).hasSize(3);
        assertThat(registry.get("blade.request.gc.share").tag("slower.than", "10ms").gauge().value())
            .isBetween(0.0, 1.0);

        node.gate().close();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(503);
        assertThat(registry.get("blade.gate.open").gauge().value()).isEqualTo(0.0);
        assertThat(registry.get("blade.gate.shed").functionCounter().count()).isEqualTo(1.0);
        node.gate().open();

        app.close();
        app = null;
        assertThat(registry.getMeters()).as("removed in destroy").isEmpty();
    }
}
