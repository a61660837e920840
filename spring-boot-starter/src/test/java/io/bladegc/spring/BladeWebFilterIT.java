package io.bladegc.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.bladegc.api.Gate;
import io.bladegc.testkit.GateDrill;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real WebFlux application on Reactor Netty with the starter: a slow event stream in flight when the gate closes is
 * never cut and the drain waits for its end; new requests meanwhile get {@code 503} with the retry hint; once the gate
 * opens they are served; and a short load across gate closes sees only 200s and such 503s. The node's own drains are
 * kept out (its handler defers), so the test drives the gate.
 */
class BladeWebFilterIT {
    private static final long WAIT_SECONDS = 20;

    private ConfigurableApplicationContext context;
    private StreamingApp app;
    private BladeWebFilter filter;
    private Gate gate;
    private String base;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() {
        SpringApplication application = new SpringApplication(StreamingApp.class);
        application.setWebApplicationType(org.springframework.boot.WebApplicationType.REACTIVE);
        context = application.run("--server.port=0", "--server.address=127.0.0.1", "--spring.main.banner-mode=off");
        app = context.getBean(StreamingApp.class);
        filter = context.getBean(BladeWebFilter.class);
        BladeNode node = Blade.node().orElseThrow();
        node.register(request -> GcDecision.DEFER);
        gate = node.gate();
        // a drain handed to the node's gc thread before the handler changed reopens the gate within its timeout
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).until(gate::isOpen);
        base = "http://127.0.0.1:" + ((ReactiveWebServerApplicationContext) context).getWebServer().getPort();
    }

    @AfterEach
    void stop() {
        app.release.complete("last");
        try {
            context.close();
        } finally {
            gate.open();
            Blade.stopNode();
        }
    }

    @Test
    void theReactiveApplicationGetsTheWebFilterAndNoServletFilter() {
        assertThat(filter.isPassThrough()).isFalse();
        assertThat(filter.getOrder()).isEqualTo(Integer.MIN_VALUE);
        assertThat(context.getBeansOfType(FilterRegistrationBean.class)).isEmpty();
    }

    @Test
    void aSlowStreamAcrossAGateCloseIsNeverCutAndTheDrainWaitsForIt() throws Exception {
        HttpResponse<Stream<String>> slow =
            client.send(HttpRequest.newBuilder(URI.create(base + "/slow")).build(), BodyHandlers.ofLines());
        assertThat(slow.statusCode()).isEqualTo(200);
        Iterator<String> lines = slow.body().iterator();
        assertThat(lines.next()).as("streamed before the gate closes").isEqualTo("data:first");
        assertThat(gate.inFlight()).isEqualTo(1);

        gate.close(); // what the node's drain does: close, then wait for the requests in flight
        CompletableFuture<Long> drained =
            GateDrill.drainInBackground(gate::awaitDrained, Duration.ofSeconds(WAIT_SECONDS));
        HttpResponse<String> shed = get("/fast");
        assertThat(GateDrill.isShed(shed)).as("503 with the retry hint: %s %s", shed.statusCode(), shed.headers().map())
            .isTrue();
        assertThat(drained).as("the slow stream is in flight").isNotDone();

        app.release.complete("last");
        StringBuilder rest = new StringBuilder();
        lines.forEachRemaining(line -> rest.append(line).append('\n'));
        assertThat("data:first\n" + rest).as("never cut").isEqualTo(StreamingApp.SLOW_BODY);
        assertThat(drained.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("drained after the last event")
            .isGreaterThanOrEqualTo(app.lastEventNanos);

        gate.open();
        HttpResponse<String> served = get("/fast");
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).isEqualTo("ok");
        assertThat(filter.shedCount()).isEqualTo(1);
    }

    @Test
    void aClientThatGoesAwayMidStreamLeavesTheGate() throws Exception {
        HttpResponse<Stream<String>> slow =
            client.send(HttpRequest.newBuilder(URI.create(base + "/slow")).build(), BodyHandlers.ofLines());
        Stream<String> body = slow.body();
        assertThat(body.iterator().next()).isEqualTo("data:first");
        assertThat(gate.inFlight()).isEqualTo(1);
        body.close(); // the body unread: the client closes the connection, and the exchange is cancelled
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> gate.inFlight() == 0);
    }

    @Test
    void underLoadAcrossGateClosesEveryRequestIsServedOrShedWithARetryHint() throws Exception {
        GateDrill drill = new GateDrill(
            Map.of(URI.create(base + "/fast"), "ok", URI.create(base + "/ticks"), StreamingApp.TICKS_BODY),
            4, 300, gate::close, gate::awaitDrained, gate::open);
        GateDrill.Tally tally = drill.run(5);
        assertThat(tally.failures()).isEmpty();
        assertThat(tally.shed()).isGreaterThanOrEqualTo(5);
        assertThat(tally.served()).isGreaterThanOrEqualTo(5);
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> gate.inFlight() == 0);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), BodyHandlers.ofString());
    }
}
