package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.coordinator.http.BearerToken;
import io.bladegc.coordinator.http.PipelinedRequests;
import io.bladegc.coordinator.lb.LoadBalancer;
import io.bladegc.coordinator.slots.ManualSlotExecutor;
import io.bladegc.coordinator.slots.RecordingLoadBalancer;
import io.bladegc.coordinator.slots.SlotService;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The routes, status codes and JSON of {@link CoordinatorHandler}, on an embedded channel with a fake slot executor. */
class CoordinatorHandlerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ManualSlotExecutor slotThread = new ManualSlotExecutor(5_000_000);
    private final RecordingLoadBalancer lb = new RecordingLoadBalancer();
    private final SlotService slots = SlotService.builder().policy(SlotPolicy.defaults()).clock(slotThread.clock())
        .executor(slotThread).loadBalancer(lb).loadBalancerCalls(Runnable::run).build();
    private EmbeddedChannel channel = channel(BearerToken.none());

    private EmbeddedChannel channel(BearerToken token) {
        return new EmbeddedChannel(new PipelinedRequests(), new CoordinatorHandler(slots, token, 60_000));
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        slots.close();
    }

    /** A response and its JSON body. */
    record Answer(FullHttpResponse response, JsonNode json) {
        int status() {
            return response.status().code();
        }

        String field(String name) {
            return json.path(name).asText();
        }
    }

    /** A call with the member key of the node in {@code uri} ({@link TestKeys}). */
    private Answer call(HttpMethod method, String uri, String body, String authorization) {
        return call(method, uri, body, authorization, TestKeys.forPath(uri));
    }

    private Answer call(HttpMethod method, String uri, String body, String authorization, String memberKey) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
            Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        if (authorization != null) {
            request.headers().set(HttpHeaderNames.AUTHORIZATION, authorization);
        }
        if (memberKey != null) {
            request.headers().set(TestKeys.HEADER, memberKey);
        }
        channel.writeInbound(request);
        channel.runPendingTasks();
        return read();
    }

    private Answer read() {
        FullHttpResponse response = channel.readOutbound();
        assertThat(response).as("a response").isNotNull();
        try {
            String text = response.content().toString(StandardCharsets.UTF_8);
            JsonNode json = response.headers().get(HttpHeaderNames.CONTENT_TYPE).startsWith("application/json")
                ? JSON.readTree(text) : JSON.createObjectNode().put("text", text);
            return new Answer(response, json);
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            response.release();
        }
    }

    private Answer post(String uri, String body) {
        return call(HttpMethod.POST, uri, body, null);
    }

    /** Sends a keyed POST and leaves its answer (a long-poll) to come later. */
    private void postWithoutWaiting(String uri, String body) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri,
            Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        request.headers().set(TestKeys.HEADER, TestKeys.forPath(uri));
        channel.writeInbound(request);
    }

    @Test
    void joinAcquireReleaseOverTheRoutes() {
        assertThat(post("/v1/nodes/a/join", "").field("status")).isEqualTo("OK");
        assertThat(post("/v1/nodes/b/join", "{}").status()).isEqualTo(200);
        Answer granted = post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":120,\"waitMillis\":5000}");
        assertThat(granted.status()).isEqualTo(200);
        assertThat(granted.field("status")).isEqualTo("GRANTED");
        assertThat(granted.json().path("epoch").asLong()).isEqualTo(1);
        assertThat(granted.json().path("remainingMillis").asLong()).isEqualTo(10_000);
        assertThat(granted.json().path("deadline").asLong()).isEqualTo(5_010_000);
        assertThat(lb.calls()).containsExactly("drain a");

        assertThat(post("/v1/nodes/a/renew", "{\"epoch\":1}").field("status")).isEqualTo("GRANTED");
        assertThat(post("/v1/nodes/a/release", "{\"epoch\":1,\"pauseMillis\":12}").field("status")).isEqualTo("OK");
        assertThat(post("/v1/nodes/a/heartbeat", "").field("status")).isEqualTo("OK");
        assertThat(post("/v1/nodes/a/cancel", "{\"gcId\":1}").field("status")).isEqualTo("OK");
        assertThat(post("/v1/nodes/a/leave", "").field("status")).isEqualTo("OK");
    }

    @Test
    void aQueuedLongPollAnswersWhenTheHolderReleases() {
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        post("/v1/nodes/c/join", "");
        post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}");
        postWithoutWaiting("/v1/nodes/b/acquire", "{\"gcId\":4,\"leadMillis\":10,\"waitMillis\":5000}");
        channel.runPendingTasks();
        Object none = channel.readOutbound();
        assertThat(none).isNull();

        EmbeddedChannel other = channel;
        channel = channel(BearerToken.none()); // the holder talks on its own connection
        assertThat(post("/v1/nodes/a/release", "{\"epoch\":1,\"pauseMillis\":3}").status()).isEqualTo(200);
        channel.finishAndReleaseAll();
        channel = other;
        channel.runPendingTasks();
        Answer b = read();
        assertThat(b.field("status")).isEqualTo("GRANTED");
        assertThat(b.json().path("gcId").asLong()).isEqualTo(4);
        assertThat(b.json().path("epoch").asLong()).isEqualTo(2);
    }

    @Test
    void aTimedOutLongPollAnswersItsQueuePosition() {
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}");
        postWithoutWaiting("/v1/nodes/b/acquire", "{\"gcId\":1,\"leadMillis\":10,\"waitMillis\":1000}");
        slotThread.advance(1_000);
        channel.runPendingTasks();
        Answer b = read();
        assertThat(b.field("status")).isEqualTo("QUEUED");
        assertThat(b.json().path("position").asInt()).isEqualTo(1);
    }

    @Test
    void ledgerAnswersMapToStatusCodes() {
        assertThat(post("/v1/nodes/ghost/heartbeat", "").status()).isEqualTo(404);
        assertThat(post("/v1/nodes/ghost/heartbeat", "").field("status")).isEqualTo("UNKNOWN_NODE");
        // API.md: renew and cancel without a prior join are 404 too (they were 409 STALE_EPOCH and 200 OK)
        assertThat(post("/v1/nodes/ghost/renew", "{\"epoch\":1}").status()).isEqualTo(404);
        assertThat(post("/v1/nodes/ghost/cancel", "{\"gcId\":1}").field("status")).isEqualTo("UNKNOWN_NODE");
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}");
        Answer stale = post("/v1/nodes/a/release", "{\"epoch\":9,\"pauseMillis\":12}");
        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.field("status")).isEqualTo("STALE_EPOCH");
        assertThat(stale.field("message")).contains("epoch 9");
        Answer other = post("/v1/nodes/a/acquire", "{\"gcId\":2,\"leadMillis\":10}");
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.field("status")).isEqualTo("REJECTED");
    }

    @Test
    void badRequestsNameTheProblem() {
        Answer badId = post("/v1/nodes/a%20b/join", "");
        assertThat(badId.status()).isEqualTo(400);
        assertThat(badId.field("message")).startsWith("invalid node id 'a%20b'");
        Answer badJson = post("/v1/nodes/a/acquire", "{\"gcId\":1,");
        assertThat(badJson.status()).isEqualTo(400);
        assertThat(badJson.field("status")).isEqualTo("BAD_REQUEST");
        assertThat(badJson.field("message")).startsWith("malformed JSON");
        Answer absurd = post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":1,\"waitMillis\":999999999}");
        assertThat(absurd.status()).isEqualTo(400);
        assertThat(absurd.field("message")).contains("'waitMillis' must be between 0 and 60000");
        assertThat(post("/v1/nodes/a/join", "[]").status()).isEqualTo(400);
    }

    @Test
    void unknownPathsAre404AndWrongMethods405() {
        Answer missing = call(HttpMethod.GET, "/v1/nope", "", null);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.field("status")).isEqualTo("NOT_FOUND");
        Answer getJoin = call(HttpMethod.GET, "/v1/nodes/a/join", "", null);
        assertThat(getJoin.status()).isEqualTo(405);
        assertThat(getJoin.response().headers().get(HttpHeaderNames.ALLOW)).isEqualTo("POST");
        assertThat(call(HttpMethod.PUT, "/v1/nodes/a/acquire", "{}", null).status()).isEqualTo(405);
        assertThat(call(HttpMethod.POST, "/v1/cluster", "", null).status()).isEqualTo(405);
        assertThat(call(HttpMethod.DELETE, "/health", "", null).status()).isEqualTo(405);
    }

    @Test
    void mutatingCallsNeedTheTokenWhenOneIsSet() {
        channel.finishAndReleaseAll();
        channel = channel(BearerToken.of("s3cret"));
        Answer none = post("/v1/nodes/a/join", "");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.response().headers().get(HttpHeaderNames.WWW_AUTHENTICATE)).startsWith("Bearer");
        assertThat(call(HttpMethod.POST, "/v1/nodes/a/join", "", "Bearer wrong").status()).isEqualTo(401);
        // the token is checked before the node id and the body are even looked at
        assertThat(call(HttpMethod.POST, "/v1/nodes/%%%/join", "garbage", null).status()).isEqualTo(401);
        assertThat(call(HttpMethod.POST, "/v1/nodes/a/join", "", "Bearer s3cret").status()).isEqualTo(200);
        assertThat(call(HttpMethod.GET, "/v1/cluster", "", null).status()).as("the cluster view names nodes")
            .isEqualTo(401);
        assertThat(call(HttpMethod.HEAD, "/v1/cluster", "", "Bearer wrong").status()).isEqualTo(401);
        assertThat(call(HttpMethod.GET, "/v1/cluster", "", "Bearer s3cret").status()).isEqualTo(200);
        assertThat(call(HttpMethod.GET, "/health", "", null).status()).isEqualTo(200);
        assertThat(call(HttpMethod.GET, "/metrics", "", null).status()).isEqualTo(200);
    }

    @Test
    void clusterHealthAndMetrics() {
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}");
        post("/v1/nodes/b/acquire", "{\"gcId\":2,\"leadMillis\":10}");
        Answer cluster = call(HttpMethod.GET, "/v1/cluster", "", null);
        assertThat(cluster.status()).isEqualTo(200);
        JsonNode c = cluster.json();
        assertThat(c.path("members").toString()).isEqualTo("[\"a\",\"b\"]");
        assertThat(c.path("collecting").get(0).path("node").asText()).isEqualTo("a");
        assertThat(c.path("queue").get(0).path("node").asText()).isEqualTo("b");
        assertThat(c.path("queue").get(0).path("position").asInt()).isEqualTo(1);
        assertThat(c.path("policy").path("maxCollecting").asInt()).isEqualTo(1);
        assertThat(c.path("loadBalancer").asText()).isEqualTo("recording load balancer");
        assertThat(c.path("recentEvents").size()).isEqualTo(5); // JOINED x2, QUEUED, GRANTED, QUEUED
        assertThat(c.path("recentEvents").get(3).path("type").asText()).isEqualTo("GRANTED");

        Answer health = call(HttpMethod.GET, "/health", "", null);
        assertThat(health.field("status")).isEqualTo("UP");
        Answer metrics = call(HttpMethod.GET, "/metrics", "", null);
        assertThat(metrics.response().headers().get(HttpHeaderNames.CONTENT_TYPE)).startsWith("text/plain");
        assertThat(metrics.field("text")).contains("blade_coordinator_grants_total 1.0",
            "blade_coordinator_requests_total{route=\"acquire\",status=\"200\"} 2.0");
    }

    @Test
    void answersKeepTheConnectionOpenUnlessAskedOtherwise() {
        Answer open = call(HttpMethod.GET, "/health", "", null);
        assertThat(open.response().headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("keep-alive");
        assertThat(channel.isOpen()).isTrue();
        FullHttpRequest closing = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/health");
        closing.headers().set(HttpHeaderNames.CONNECTION, "close");
        channel.writeInbound(closing);
        channel.runPendingTasks();
        assertThat(read().response().headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aClosedConnectionCancelsItsLongPoll() {
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}");
        postWithoutWaiting("/v1/nodes/b/acquire", "{\"gcId\":1,\"leadMillis\":10,\"waitMillis\":30000}");
        assertThat(slots.cluster().join().waiting()).isEqualTo(1);
        channel.close();
        assertThat(slots.cluster().join().waiting()).isZero();
    }

    @Test
    void afterShutdownCallsAre503WithRetryAfter() {
        slots.close();
        Answer join = post("/v1/nodes/a/join", "");
        assertThat(join.status()).isEqualTo(503);
        assertThat(join.response().headers().get(HttpHeaderNames.RETRY_AFTER)).isEqualTo("1");
        assertThat(join.response().headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        channel = channel(BearerToken.none());
        assertThat(call(HttpMethod.GET, "/v1/cluster", "", null).status()).isEqualTo(503);
        channel = channel(BearerToken.none());
        assertThat(call(HttpMethod.GET, "/health", "", null).status()).isEqualTo(503);
    }

    // ---- one test per status API.md documents that the tests above do not produce (issue 15) ----

    /**
     * Nodes a and b join, a holds the slot, b long-polls for gcId 4 behind it.
     *
     * @return b's long-poll channel; {@code channel} is a fresh one for the next calls
     */
    private EmbeddedChannel bPollsBehindA() {
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}");
        EmbeddedChannel polling = channel;
        postWithoutWaiting("/v1/nodes/b/acquire", "{\"gcId\":4,\"leadMillis\":10,\"waitMillis\":5000}");
        channel = channel(BearerToken.none());
        return polling;
    }

    @Test
    void aLongPollEndsCancelledWhenItsRequestIsWithdrawnOrReplaced() {
        EmbeddedChannel polling = bPollsBehindA();
        assertThat(post("/v1/nodes/b/cancel", "{\"gcId\":4}").field("status")).isEqualTo("OK");
        EmbeddedChannel other = channel;
        channel = polling;
        channel.runPendingTasks();
        Answer withdrawn = read();
        assertThat(withdrawn.status()).isEqualTo(200);
        assertThat(withdrawn.field("status")).isEqualTo("CANCELLED");
        assertThat(withdrawn.json().path("gcId").asLong()).isEqualTo(4);

        postWithoutWaiting("/v1/nodes/b/acquire", "{\"gcId\":5,\"leadMillis\":10,\"waitMillis\":5000}");
        channel = other;
        postWithoutWaiting("/v1/nodes/b/acquire", "{\"gcId\":6,\"leadMillis\":10,\"waitMillis\":5000}");
        channel = polling;
        channel.runPendingTasks();
        Answer replaced = read();
        assertThat(replaced.field("status")).isEqualTo("CANCELLED");
        assertThat(replaced.json().path("gcId").asLong()).isEqualTo(5);
        assertThat(replaced.field("message")).contains("replaced by GC request 6");
        other.finishAndReleaseAll();
    }

    @Test
    void aLongPollOfANodeThatLeavesEndsUnknownNode() {
        EmbeddedChannel polling = bPollsBehindA();
        assertThat(post("/v1/nodes/b/leave", "").status()).isEqualTo(200);
        channel.finishAndReleaseAll();
        channel = polling;
        channel.runPendingTasks();
        Answer left = read();
        assertThat(left.status()).isEqualTo(404);
        assertThat(left.field("status")).isEqualTo("UNKNOWN_NODE");
    }

    @Test
    void everyNodeCallButJoinIs404ForANodeThatIsNoMember() {
        String[][] calls = {{"heartbeat", ""}, {"leave", ""}, {"acquire", "{\"gcId\":1,\"leadMillis\":1}"},
            {"release", "{\"epoch\":1}"}, {"renew", "{\"epoch\":1}"}, {"cancel", "{\"gcId\":1}"}};
        for (String[] c : calls) {
            Answer a = post("/v1/nodes/ghost/" + c[0], c[1]);
            assertThat(a.status()).as(c[0]).isEqualTo(404);
            assertThat(a.field("status")).as(c[0]).isEqualTo("UNKNOWN_NODE");
        }
    }

    @Test
    void aRenewalOfAnotherEpochIs409StaleEpoch() {
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        long epoch = post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}").json().path("epoch").asLong();
        Answer stale = post("/v1/nodes/a/renew", "{\"epoch\":" + (epoch + 1) + "}");
        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.field("status")).isEqualTo("STALE_EPOCH");
    }

    @Test
    void aNodeCallWithoutTheNodesMemberKeyIs403AndChangesNothing() {
        post("/v1/nodes/a/join", "");
        post("/v1/nodes/b/join", "");
        long epoch = post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":10}").json().path("epoch").asLong();
        String forged = TestKeys.of("b");
        String[][] calls = {{"join", ""}, {"heartbeat", ""}, {"leave", ""},
            {"acquire", "{\"gcId\":2,\"leadMillis\":1}"}, {"release", "{\"epoch\":" + epoch + "}"},
            {"renew", "{\"epoch\":" + epoch + "}"}, {"cancel", "{\"gcId\":1}"}};
        for (String[] c : calls) {
            for (String key : new String[] {forged, null}) {
                Answer a = call(HttpMethod.POST, "/v1/nodes/a/" + c[0], c[1], null, key);
                assertThat(a.status()).as(c[0] + " with key " + key).isEqualTo(403);
                assertThat(a.field("status")).isEqualTo("FORBIDDEN");
                assertThat(a.field("message")).contains("member key of node a");
            }
        }
        JsonNode cluster = call(HttpMethod.GET, "/v1/cluster", "", null).json();
        assertThat(cluster.path("collecting").get(0).path("epoch").asLong()).isEqualTo(epoch);
        assertThat(cluster.path("members").toString()).isEqualTo("[\"a\",\"b\"]");
        assertThat(lb.calls()).containsExactly("drain a");
    }

    @Test
    void aJoinWithoutAMemberKeyGetsOneAndABadKeyIs400() {
        Answer joined = call(HttpMethod.POST, "/v1/nodes/c/join", "", null, null);
        assertThat(joined.status()).isEqualTo(200);
        String key = joined.field("memberKey");
        assertThat(key).matches("[A-Za-z0-9_-]{22}");
        assertThat(call(HttpMethod.POST, "/v1/nodes/c/heartbeat", "", null, key).status()).isEqualTo(200);
        assertThat(post("/v1/nodes/a/join", "").json().has("memberKey")).as("a key of its own").isFalse();
        for (String bad : new String[] {"short", "has spaces in it here", "x".repeat(129), "key/with/slashes!!"}) {
            Answer a = call(HttpMethod.POST, "/v1/nodes/c/heartbeat", "", null, bad);
            assertThat(a.status()).as(bad).isEqualTo(400);
            assertThat(a.field("message")).contains("Blade-Member-Key");
        }
    }

    @Test
    void aJoinBeyondTheMemberLimitIs503WithRetryAfter() {
        channel.finishAndReleaseAll();
        try (SlotService small = SlotService.builder().clock(slotThread.clock()).executor(slotThread).maxMembers(1)
            .loadBalancerCalls(Runnable::run).build()) {
            channel = new EmbeddedChannel(new PipelinedRequests(), new CoordinatorHandler(small, BearerToken.none(),
                60_000));
            assertThat(post("/v1/nodes/a/join", "").status()).isEqualTo(200);
            Answer full = post("/v1/nodes/b/join", "");
            assertThat(full.status()).isEqualTo(503);
            assertThat(full.field("status")).isEqualTo("UNAVAILABLE");
            assertThat(full.field("message")).contains("member limit");
            assertThat(full.response().headers().get(HttpHeaderNames.RETRY_AFTER)).isEqualTo("1");
        }
    }

    @Test
    void aFaultInTheCoordinatorIs500() {
        channel.finishAndReleaseAll();
        LoadBalancer broken = new LoadBalancer() {
            @Override
            public void drain(String node) {
            }

            @Override
            public void ready(String node) {
            }

            @Override
            public String describe() {
                throw new IllegalStateException("broken on purpose");
            }
        };
        try (SlotService faulty = SlotService.builder().clock(slotThread.clock()).executor(slotThread)
            .loadBalancer(broken).loadBalancerCalls(Runnable::run).build()) {
            channel = new EmbeddedChannel(new PipelinedRequests(), new CoordinatorHandler(faulty, BearerToken.none(),
                60_000));
            Answer a = call(HttpMethod.GET, "/v1/cluster", "", null);
            assertThat(a.status()).isEqualTo(500);
            assertThat(a.field("status")).isEqualTo("INTERNAL_ERROR");
        }
    }
}
