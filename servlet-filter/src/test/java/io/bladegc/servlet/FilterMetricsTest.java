package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The Micrometer meters, supplied through the constructor or the servlet context attribute. */
class FilterMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final TestServlets.CollectsDuringRequest collects =
        new TestServlets.CollectsDuringRequest(() -> this.node.pauseNanos());
    private JettyApp app;
    private BladeNode node;

    @AfterEach
    void stop() throws Exception {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            Blade.stopNode();
        }
    }

    private void serve(BladeFilter filter, boolean registryAsAttribute) throws Exception {
        ServletContextHandler context = JettyApp.context(JettyApp.CONTEXT, filter, Map.of(BladeFilter.GC_OVERLAP_PARAM, "true"));
        if (registryAsAttribute) {
            context.setAttribute(BladeFilter.METER_REGISTRY_ATTRIBUTE, registry);
        }
        JettyApp.servlet(context, "/hello", new TestServlets.Hello());
        JettyApp.servlet(context, "/gc", collects);
        app = JettyApp.start(context);
        node = QuietNode.quiet(Blade.node().orElseThrow());
    }

    @Test
    void registryPassedToTheConstructorReceivesTheMeters() throws Exception {
        serve(new BladeFilter(registry), false);
        assertMeters(registry);
    }

    @Test
    void registryInTheServletContextReceivesTheMeters() throws Exception {
        serve(new BladeFilter(), true);
        assertMeters(registry);
    }

    @Test
    void metersAreRemovedWhenTheFilterIsDestroyed() throws Exception {
        serve(new BladeFilter(registry), false);
        assertThat(registry.find("blade.gate.shed").meters()).isNotEmpty();
        app.close();
        app = null;
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void somethingElseThanARegistryIsIgnored() throws Exception {
        BladeFilter filter = new BladeFilter("not a registry");
        serve(filter, false);
        assertThat(filter.isPassThrough()).isFalse();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
    }

    private void assertMeters(MeterRegistry r) throws Exception {
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        assertThat(r.get("blade.gate.open").gauge().value()).isEqualTo(1.0);
        assertThat(r.get("blade.gate.inflight").gauge().value()).isEqualTo(0.0);
        assertThat(r.get("blade.gate.shed").functionCounter().count()).isEqualTo(0.0);

        node.gate().close();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(503);
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(503);
        assertThat(r.get("blade.gate.open").gauge().value()).isEqualTo(0.0);
        assertThat(r.get("blade.gate.shed").functionCounter().count()).isEqualTo(2.0);
        node.gate().open();

        assertThat(r.find("blade.request.gc.share").gauges()).hasSize(3);
        assertThat(r.get("blade.request.gc.overlap").timer().count()).isZero();
        assertThat(app.get("/app/gc").statusCode()).isEqualTo(200);
        assertThat(r.get("blade.request.gc.share").tag("slower.than", "10ms").gauge().value())
            .isBetween(0.0, 1.0);
        if (collects.pauseSeen.get()) { // not under collectors whose pauses stay below the notifications' 1 ms
            await().atMost(Duration.ofSeconds(10))
                .until(() -> r.get("blade.request.gc.overlap").timer().count() >= 1);
            assertThat(r.get("blade.request.gc.overlap").timer().totalTime(TimeUnit.NANOSECONDS)).isPositive();
        }
    }
}
