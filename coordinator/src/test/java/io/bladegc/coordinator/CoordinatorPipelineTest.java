package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.coordinator.http.PipelinedRequests;
import io.bladegc.coordinator.slots.ManualSlotExecutor;
import io.bladegc.coordinator.slots.SlotService;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The whole pipeline on raw bytes: limits, framing, smuggling, pipelining, the request deadline. */
class CoordinatorPipelineTest {
    private static final Pattern STATUS = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");

    private final ManualSlotExecutor slotThread = new ManualSlotExecutor(1_000);
    private final SlotService slots = SlotService.builder().policy(SlotPolicy.defaults()).clock(slotThread.clock())
        .executor(slotThread).loadBalancerCalls(Runnable::run).build();
    private final CoordinatorConfig config = CoordinatorConfig.defaults().withTimeouts(60_000, 2_000, 60_000);
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final StringBuilder wire = new StringBuilder();

    CoordinatorPipelineTest() {
        new CoordinatorServerInitializer(config, slots, new DefaultChannelGroup(GlobalEventExecutor.INSTANCE))
            .configure(channel.pipeline());
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
        slots.close();
    }

    private String send(String raw) {
        channel.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.ISO_8859_1));
        channel.runPendingTasks();
        return drain();
    }

    private String drain() {
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            wire.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return wire.toString();
    }

    private static java.util.List<Integer> statuses(String text) {
        java.util.List<Integer> codes = new java.util.ArrayList<>();
        Matcher m = STATUS.matcher(text);
        while (m.find()) {
            codes.add(Integer.parseInt(m.group(1)));
        }
        return codes;
    }

    private static String post(String path, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: c\r\n" + TestKeys.HEADER + ": " + TestKeys.forPath(path)
            + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    @Test
    void aGoodRequestIsAnswered() {
        String out = send(post("/v1/nodes/a/join", ""));
        assertThat(statuses(out)).containsExactly(200);
        assertThat(out).contains("\"status\":\"OK\"", "content-type: application/json");
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aChunkedBodyIsAccepted() {
        send(post("/v1/nodes/a/join", ""));
        send(post("/v1/nodes/b/join", ""));
        String body = "{\"gcId\":1,\"leadMillis\":5}";
        String out = send("POST /v1/nodes/a/acquire HTTP/1.1\r\nHost: c\r\nTransfer-Encoding: chunked\r\n"
            + TestKeys.HEADER + ": " + TestKeys.of("a") + "\r\n\r\n"
            + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n");
        assertThat(statuses(out)).containsExactly(200, 200, 200);
        assertThat(out).contains("\"status\":\"GRANTED\"");
    }

    @Test
    void anOversizedBodyIs413AndTheConnectionCloses() {
        String out = send("POST /v1/nodes/a/join HTTP/1.1\r\nHost: c\r\nContent-Length: 70000\r\n\r\n{");
        assertThat(statuses(out)).containsExactly(413);
        assertThat(out).contains("PAYLOAD_TOO_LARGE");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void anOversizedChunkedBodyIs413() {
        StringBuilder chunks = new StringBuilder();
        for (int i = 0; i < 70; i++) {
            chunks.append("400\r\n").append("x".repeat(1024)).append("\r\n");
        }
        String out = send("POST /v1/nodes/a/join HTTP/1.1\r\nHost: c\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks);
        assertThat(statuses(out)).containsExactly(413);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void oversizedHeadersAre431() {
        String out = send("GET /health HTTP/1.1\r\nHost: c\r\nX-Big: " + "a".repeat(9_000) + "\r\n\r\n");
        assertThat(statuses(out)).containsExactly(431);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void anOversizedRequestLineIs414() {
        String out = send("GET /" + "a".repeat(5_000) + " HTTP/1.1\r\nHost: c\r\n\r\n");
        assertThat(statuses(out)).containsExactly(414);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void contentLengthWithTransferEncodingIsRejectedAndTheSmuggledRequestNeverRuns() {
        String smuggled = post("/v1/nodes/smuggled/join", "");
        String out = send("POST /v1/nodes/a/join HTTP/1.1\r\nHost: c\r\nContent-Length: " + (5 + smuggled.length())
            + "\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled);
        assertThat(statuses(out)).containsExactly(400);
        assertThat(out).contains("malformed request");
        assertThat(channel.isOpen()).isFalse();
        assertThat(slots.cluster().join().view().members()).isEmpty();
    }

    @Test
    void otherSmugglingShapesAre400() {
        for (String headers : new String[] {
            "Content-Length: 2\r\nContent-Length: 3\r\n",
            "Content-Length: 2, 3\r\n",
            "Transfer-Encoding: gzip, chunked\r\n",
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
            "Transfer-Encoding: xchunked\r\n",
            "Content-Length: -1\r\n",
            "Content-Length : 2\r\n",
        }) {
            EmbeddedChannel ch = new EmbeddedChannel();
            new CoordinatorServerInitializer(config, slots, new DefaultChannelGroup(GlobalEventExecutor.INSTANCE))
                .configure(ch.pipeline());
            ch.writeInbound(Unpooled.copiedBuffer("POST /v1/nodes/a/join HTTP/1.1\r\nHost: c\r\n" + headers
                + "\r\n0\r\n\r\n", StandardCharsets.ISO_8859_1));
            ch.runPendingTasks();
            StringBuilder out = new StringBuilder();
            ByteBuf b;
            while ((b = ch.readOutbound()) != null) {
                out.append(b.toString(StandardCharsets.UTF_8));
                b.release();
            }
            assertThat(statuses(out.toString())).as(headers).containsExactly(400);
            assertThat(ch.isOpen()).as(headers).isFalse();
            ch.finishAndReleaseAll();
        }
        assertThat(slots.cluster().join().view().members()).isEmpty();
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderEvenBehindALongPoll() {
        send(post("/v1/nodes/a/join", "") + post("/v1/nodes/b/join", "")
            + post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":5}"));
        wire.setLength(0);
        String out = send(post("/v1/nodes/b/acquire", "{\"gcId\":1,\"leadMillis\":5,\"waitMillis\":3000}")
            + "GET /health HTTP/1.1\r\nHost: c\r\n\r\n");
        assertThat(statuses(out)).isEmpty(); // /health waits behind the long-poll
        slotThread.advance(3_000);
        channel.runPendingTasks();
        out = drain();
        assertThat(statuses(out)).containsExactly(200, 200);
        assertThat(out.indexOf("QUEUED")).isLessThan(out.indexOf("\"UP\""));
    }

    @Test
    void requestsBeyondTheHeldOnesAreRefusedInTheirTurnAndNeverExecuted() {
        send(post("/v1/nodes/a/join", "") + post("/v1/nodes/b/join", "")
            + post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":5}"));
        wire.setLength(0);
        StringBuilder flood = new StringBuilder(post("/v1/nodes/b/acquire",
            "{\"gcId\":1,\"leadMillis\":5,\"waitMillis\":3000}"));
        for (int i = 1; i <= PipelinedRequests.MAX_HELD + 3; i++) {
            flood.append(post("/v1/nodes/n" + i + "/join", ""));
        }
        assertThat(statuses(send(flood.toString()))).isEmpty(); // all wait behind the long-poll
        assertThat(channel.isOpen()).isTrue();
        slotThread.advance(3_000);
        channel.runPendingTasks();
        String out = drain();
        java.util.List<Integer> expected = new java.util.ArrayList<>();
        for (int i = 0; i <= PipelinedRequests.MAX_HELD; i++) {
            expected.add(200);
        }
        expected.add(503);
        assertThat(statuses(out)).isEqualTo(expected);
        assertThat(out).contains("too many pipelined requests", "retry-after: 1", "connection: close");
        assertThat(channel.isOpen()).isFalse();
        assertThat(slots.cluster().join().view().members()).as("joined: exactly the answered ones")
            .containsExactly("a", "b", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8");
    }

    @Test
    void aRequestBeforeGarbageIsAnsweredBeforeThe400() {
        String out = send(post("/v1/nodes/a/join", "") + "\u0016\u0003\u0001garbage\r\n\r\n");
        assertThat(statuses(out)).containsExactly(200, 400);
        assertThat(out.indexOf("\"status\":\"OK\"")).isLessThan(out.indexOf("malformed request"));
        assertThat(channel.isOpen()).isFalse();
        assertThat(slots.cluster().join().view().members()).containsExactly("a");
    }

    @Test
    void aRequestBeforeAnOversizedOneIsAnsweredBeforeThe413() {
        String out = send(post("/v1/nodes/a/join", "")
            + "POST /v1/nodes/b/join HTTP/1.1\r\nHost: c\r\nContent-Length: 70000\r\n\r\n{"
            + post("/v1/nodes/c/join", ""));
        assertThat(statuses(out)).containsExactly(200, 413);
        assertThat(channel.isOpen()).isFalse();
        assertThat(slots.cluster().join().view().members()).containsExactly("a");
    }

    @Test
    void aRequestTrickledInBehindALongPollGets408AfterThePollsAnswer() {
        channel.freezeTime();
        send(post("/v1/nodes/a/join", "") + post("/v1/nodes/b/join", "")
            + post("/v1/nodes/a/acquire", "{\"gcId\":1,\"leadMillis\":5}"));
        wire.setLength(0);
        send(post("/v1/nodes/b/acquire", "{\"gcId\":1,\"leadMillis\":5,\"waitMillis\":3000}"));
        send("GET /hea");
        channel.advanceTimeBy(2_000, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(statuses(drain())).as("the long-poll is answered first").isEmpty();
        assertThat(channel.isOpen()).isTrue();
        slotThread.advance(3_000);
        channel.runPendingTasks();
        String out = drain();
        assertThat(statuses(out)).containsExactly(200, 408);
        assertThat(out).contains("QUEUED");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aRequestTrickledInTooSlowlyIs408() {
        channel.freezeTime();
        send("GET /hea");
        channel.advanceTimeBy(1_000, TimeUnit.MILLISECONDS);
        send("l");
        channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).isTrue();
        send("t"); // still trickling: the deadline counts from the first byte
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
        assertThat(statuses(drain())).containsExactly(408);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void theDeadlineStartsAgainForEachRequest() {
        channel.freezeTime();
        send("GET /health HTTP/1.1\r\nHost: c\r\n\r\n");
        channel.advanceTimeBy(1_500, TimeUnit.MILLISECONDS);
        send("GET /health HTTP/1.1\r\n");
        channel.advanceTimeBy(1_500, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        send("Host: c\r\n\r\n");
        assertThat(statuses(drain())).containsExactly(200, 200);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void aRefusedExpectContinueIs413AndCloses() {
        String out = send("POST /v1/nodes/a/join HTTP/1.1\r\nHost: c\r\nExpect: 100-continue\r\n"
            + "Content-Length: 100000\r\n\r\n");
        assertThat(statuses(out)).containsExactly(413);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void anAcceptedExpectContinueGets100ThenTheAnswer() {
        String head = send("POST /v1/nodes/a/join HTTP/1.1\r\nHost: c\r\nExpect: 100-continue\r\n"
            + "Content-Length: 2\r\n\r\n");
        assertThat(head).startsWith("HTTP/1.1 100 Continue");
        assertThat(statuses(send("{}"))).containsExactly(100, 200);
    }

    @Test
    void headOnAReadEndpointGetsHeadersOnly() {
        String out = send("HEAD /health HTTP/1.1\r\nHost: c\r\n\r\n");
        assertThat(statuses(out)).containsExactly(200);
        assertThat(out).endsWith("\r\n\r\n").contains("content-length: ");
    }

    @Test
    void aBadHeadRequestGetsNoBody() {
        String out = send("HEAD /v1/nodes/a/join HTTP/1.1\r\nHost: c\r\n\r\n");
        assertThat(statuses(out)).containsExactly(405);
        assertThat(out).endsWith("\r\n\r\n");
    }
}
