package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Init-params: a bad one never fails the webapp, {@code enabled=false}, the readiness path, joining a node. */
class BladeFilterConfigTest {
    // held strongly: java.util.logging keeps loggers only weakly
    private final Logger log = Logger.getLogger(BladeFilter.class.getName());
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private JettyApp app;

    @BeforeEach
    void captureLog() {
        log.addHandler(capture);
    }

    @AfterEach
    void stop() throws Exception {
        log.removeHandler(capture);
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            Blade.stopNode();
        }
    }

    private BladeFilter serve(Map<String, String> initParams) throws Exception {
        boolean nodeBefore = Blade.node().isPresent();
        BladeFilter filter = new BladeFilter();
        ServletContextHandler context = JettyApp.context(JettyApp.CONTEXT, filter, initParams);
        JettyApp.servlet(context, "/hello", new TestServlets.Hello());
        app = JettyApp.start(context);
        if (!nodeBefore) {
            Blade.node().ifPresent(QuietNode::quiet); // the filter started it
        }
        return filter;
    }

    private static BladeNode nodeWithClosedGate() {
        BladeNode node = QuietNode.quiet(Blade.startNode(BladeOptions.defaults()));
        node.gate().close();
        return node;
    }

    @Test
    void badInitParamLogsOneLineAndTheWebappServesThroughAPassThrough() throws Exception {
        BladeNode node = nodeWithClosedGate();
        BladeFilter filter = serve(Map.of("drainTimeot", "250ms"));

        assertThat(filter.isPassThrough()).isTrue();
        HttpResponse<String> hello = app.get("/app/hello");
        assertThat(hello.statusCode()).as("a pass-through never sheds").isEqualTo(200);
        assertThat(app.get("/app/blade/ready").statusCode()).isEqualTo(200);
        assertThat(filter.shedCount()).isZero();
        assertThat(node.gate().inFlight()).isZero();

        assertThat(logged).singleElement().extracting(LogRecord::getMessage).isEqualTo("Blade filter 'blade' in "
            + "context '/app': bad init-param: unknown init-param 'drainTimeot'; valid init-params: readinessPath, "
            + "gcOverlap, enabled, strict, drainTimeout, margin, sampleInterval; running as a pass-through that never "
            + "sheds");
    }

    @Test
    void malformedValueIsABadInitParamToo() throws Exception {
        BladeFilter filter = serve(Map.of("drainTimeout", "250"));
        assertThat(filter.isPassThrough()).isTrue();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        assertThat(logged).singleElement().extracting(LogRecord::getMessage).isEqualTo("Blade filter 'blade' in "
            + "context '/app': bad init-param: malformed option 'drainTimeout=250': a duration needs a unit (ms, s or "
            + "m), e.g. 250ms or 250s; valid init-params: readinessPath, gcOverlap, enabled, strict, drainTimeout, "
            + "margin, sampleInterval; running as a pass-through that never sheds");
        assertThat(Blade.node()).as("no node started for a misconfigured filter").isEmpty();
    }

    @Test
    void anAgentOnlyOptionIsABadInitParamThatSaysWhereItBelongs() throws Exception {
        BladeFilter filter = serve(Map.of("coordinator", "http://127.0.0.1:7070"));
        assertThat(filter.isPassThrough()).isTrue();
        assertThat(logged).singleElement().extracting(LogRecord::getMessage).asString()
            .contains("'coordinator' is an agent option", "-javaagent")
            .satisfies(line -> assertThat(line.substring(line.indexOf("valid init-params:")))
                .contains("drainTimeout").doesNotContain("coordinator", "instrument", "explicitGc", "token"));
    }

    @Test
    void badReadinessPathIsABadInitParam() throws Exception {
        BladeFilter filter = serve(Map.of(BladeFilter.READINESS_PATH_PARAM, "ready"));
        assertThat(filter.isPassThrough()).isTrue();
        assertThat(logged).singleElement().extracting(LogRecord::getMessage).asString().contains("readinessPath");
    }

    @Test
    void enabledFalseMakesAPassThrough() throws Exception {
        BladeFilter filter = serve(Map.of("enabled", "false"));
        assertThat(filter.isPassThrough()).isTrue();
        assertThat(Blade.node()).isEmpty();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
    }

    @Test
    void anAgentThatLeftBladeOffMakesAPassThroughThatSaysWhyOnce() throws Exception {
        System.setProperty(Blade.AGENT_OFF_PROPERTY, "its options were refused: unknown option 'drainTimout'");
        try {
            BladeFilter filter = serve(Map.of());
            assertThat(filter.isPassThrough()).isTrue();
            assertThat(Blade.node()).as("no node of the filter's own against the user's refused options").isEmpty();
            assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
            assertThat(logged).singleElement().extracting(LogRecord::getMessage).asString()
                .contains("agent in this JVM is off", "'drainTimout'", "pass-through");
        } finally {
            System.clearProperty(Blade.AGENT_OFF_PROPERTY);
        }
    }

    @Test
    void readinessPathIsConfigurableRelativeToTheContext() throws Exception {
        BladeFilter filter = serve(Map.of(BladeFilter.READINESS_PATH_PARAM, "/healthz", "drainTimeout", "250ms"));
        assertThat(filter.isPassThrough()).isFalse();
        assertThat(app.get("/app/healthz").body()).isEqualTo("ready");
        assertThat(app.get("/app/blade/ready").statusCode()).as("the default path is then the app's").isEqualTo(404);
        assertThat(app.get("/healthz").statusCode()).as("outside the context").isEqualTo(404);
    }

    @Test
    void emptyReadinessPathTurnsTheEndpointOff() throws Exception {
        serve(Map.of(BladeFilter.READINESS_PATH_PARAM, ""));
        assertThat(app.get("/app/blade/ready").statusCode()).isEqualTo(404);
    }

    @Test
    void gcOverlapIsOffByDefault() throws Exception {
        BladeFilter filter = serve(Map.of());
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isZero();
    }

    @Test
    void gcOverlapFalseStopsTimingButNotCounting() throws Exception {
        BladeFilter filter = serve(Map.of(BladeFilter.GC_OVERLAP_PARAM, "false"));
        assertThat(filter.isPassThrough()).isFalse();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> filter.inFlight() == 0);
        assertThat(filter.gcOverlap().snapshot().requests()).isZero();
    }

    @Test
    void malformedGcOverlapIsABadInitParam() throws Exception {
        BladeFilter filter = serve(Map.of(BladeFilter.GC_OVERLAP_PARAM, "yes"));
        assertThat(filter.isPassThrough()).isTrue();
        assertThat(logged).singleElement().extracting(LogRecord::getMessage).asString()
            .contains("'gcOverlap=yes'", "true or false");
    }

    @Test
    void joinsARunningNodeInsteadOfStartingOne() throws Exception {
        BladeNode node = nodeWithClosedGate();
        BladeFilter filter = serve(Map.of("drainTimeout", "250ms"));

        assertThat(filter.isPassThrough()).isFalse();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(503);
        assertThat(app.get("/app/blade/ready").statusCode()).isEqualTo(503);
        assertThat(logged).anySatisfy(r -> assertThat(r.getMessage()).contains("joined the running Blade node",
            "init-params are ignored"));
        node.gate().open();
        assertThat(app.get("/app/hello").statusCode()).isEqualTo(200);
    }
}
