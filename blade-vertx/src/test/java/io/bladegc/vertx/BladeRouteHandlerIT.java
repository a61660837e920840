package io.bladegc.vertx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.GcDecision;
import io.bladegc.api.Gate;
import io.bladegc.testkit.GateDrill;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
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

/**
 * A real Vert.x Web server with the handler first in its router: a slow chunked response in flight when the gate
 * closes is never cut and the drain waits for its end; new requests meanwhile get {@code 503} with the retry hint;
 * once the gate opens they are served; and a short load across gate closes sees only 200s and such 503s. The node's
 * own drains are kept out (its handler defers), so the test drives the gate.
 */
class BladeRouteHandlerIT {
    private static final long WAIT_SECONDS = 20;
    private static final String TICKS_BODY = "0\n1\n2\n";

    /** Completed by the test: {@code /slow} writes its last chunk. */
    private final CompletableFuture<String> release = new CompletableFuture<>();
    /** When {@code /slow} wrote its last chunk and ended. */
    private volatile long lastChunkNanos;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Vertx vertx;
    private BladeRouteHandler blade;
    private Gate gate;
    private String base;

    @BeforeEach
    void start() throws Exception {
        blade = BladeRouteHandler.start(BladeOptions.defaults());
        BladeNode node = blade.node();
        node.register(request -> GcDecision.DEFER);
        gate = node.gate();
        // a drain handed to the node's gc thread before the handler changed reopens the gate within its timeout
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).until(gate::isOpen);
        vertx = Vertx.vertx();
        Router router = Router.router(vertx);
        router.route().handler(blade);
        router.get("/fast").handler(ctx -> ctx.response().end("ok"));
        router.get("/slow").handler(ctx -> {
            HttpServerResponse response = ctx.response().setChunked(true);
            response.write("first\n");
            Context context = vertx.getOrCreateContext();
            release.thenAccept(last -> context.runOnContext(v -> {
                lastChunkNanos = System.nanoTime();
                response.end(last + "\n");
            }));
        });
        router.get("/ticks").handler(ctx -> tick(ctx.response().setChunked(true), 0));
        router.get("/again").handler(ctx -> ctx.reroute("/fast"));
        router.get("/fail").handler(ctx -> ctx.fail(500));
        HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
            .toCompletionStage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
        base = "http://127.0.0.1:" + server.actualPort();
    }

    /** Writes {@code 0\n1\n2\n}, a chunk a millisecond. */
    private void tick(HttpServerResponse response, int i) {
        if (i == 2) {
            response.end(i + "\n");
        } else {
            response.write(i + "\n");
            vertx.setTimer(1, t -> tick(response, i + 1));
        }
    }

    @AfterEach
    void stop() throws Exception {
        release.complete("last");
        try {
            if (vertx != null) {
                vertx.close().toCompletionStage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            blade.close();
        } finally {
            gate.open();
            Blade.stopNode();
        }
    }

    @Test
    void aSlowChunkedResponseAcrossAGateCloseIsNeverCutAndTheDrainWaitsForIt() throws Exception {
        HttpResponse<Stream<String>> slow =
            client.send(HttpRequest.newBuilder(URI.create(base + "/slow")).build(), BodyHandlers.ofLines());
        assertThat(slow.statusCode()).isEqualTo(200);
        Iterator<String> lines = slow.body().iterator();
        assertThat(lines.next()).as("streamed before the gate closes").isEqualTo("first");
        assertThat(gate.inFlight()).isEqualTo(1);

        gate.close(); // what the node's drain does: close, then wait for the requests in flight
        CompletableFuture<Long> drained =
            GateDrill.drainInBackground(gate::awaitDrained, Duration.ofSeconds(WAIT_SECONDS));
        HttpResponse<String> shed = get("/fast");
        assertThat(GateDrill.isShed(shed)).as("503 with the retry hint: %s %s", shed.statusCode(), shed.headers().map())
            .isTrue();
        assertThat(drained).as("the slow response is in flight").isNotDone();

        release.complete("last");
        StringBuilder rest = new StringBuilder();
        lines.forEachRemaining(line -> rest.append(line).append('\n'));
        assertThat("first\n" + rest).as("never cut").isEqualTo("first\nlast\n");
        assertThat(drained.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("drained after the last chunk")
            .isGreaterThanOrEqualTo(lastChunkNanos);

        gate.open();
        HttpResponse<String> served = get("/fast");
        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(served.body()).isEqualTo("ok");
        assertThat(blade.shedCount()).isEqualTo(1);
    }

    @Test
    void aClientThatGoesAwayMidStreamLeavesTheGate() throws Exception {
        HttpResponse<Stream<String>> slow =
            client.send(HttpRequest.newBuilder(URI.create(base + "/slow")).build(), BodyHandlers.ofLines());
        Stream<String> body = slow.body();
        assertThat(body.iterator().next()).isEqualTo("first");
        assertThat(gate.inFlight()).isEqualTo(1);
        body.close(); // the body unread: the client closes the connection
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> gate.inFlight() == 0);
    }

    @Test
    void aReroutedOrFailedRequestLeavesTheGateOnce() throws Exception {
        HttpResponse<String> rerouted = get("/again");
        assertThat(rerouted.statusCode()).isEqualTo(200);
        assertThat(rerouted.body()).isEqualTo("ok");
        assertThat(get("/fail").statusCode()).isEqualTo(500);
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> gate.inFlight() == 0);
        assertThat(get("/fast").statusCode()).as("the count did not go below 0").isEqualTo(200);
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void underLoadAcrossGateClosesEveryRequestIsServedOrShedWithARetryHint() throws Exception {
        GateDrill drill = new GateDrill(
            Map.of(URI.create(base + "/fast"), "ok", URI.create(base + "/ticks"), TICKS_BODY),
            4, 300, gate::close, gate::awaitDrained, gate::open);
        GateDrill.Tally tally = drill.run(5);
        assertThat(tally.failures()).isEmpty();
        assertThat(tally.shed()).isGreaterThanOrEqualTo(5);
        assertThat(tally.served()).isGreaterThanOrEqualTo(5);
        await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> gate.inFlight() == 0);
    }

    @Test
    void offItPassesEveryRequestThroughWhateverTheGate() throws Exception {
        try (BladeRouteHandler off = BladeRouteHandler.start(BladeOptions.builder().enabled(false).build())) {
            assertThat(off.isPassThrough()).isTrue();
            Router router = Router.router(vertx);
            router.route().handler(off);
            router.get("/fast").handler(ctx -> ctx.response().end("ok"));
            HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            gate.close();
            HttpResponse<String> passed = client.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.actualPort() + "/fast")).build(), BodyHandlers.ofString());
            assertThat(passed.statusCode()).isEqualTo(200);
            assertThat(off.shedCount()).isZero();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).build(), BodyHandlers.ofString());
    }
}
