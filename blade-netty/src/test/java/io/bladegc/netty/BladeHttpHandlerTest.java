package io.bladegc.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.Gate;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One channel's handler in an {@link EmbeddedChannel}, alone or after the real {@link HttpServerCodec}. */
class BladeHttpHandlerTest {
    private BladeHttpGate blade;
    private Gate gate;
    private EmbeddedChannel channel;

    @BeforeEach
    void start() {
        blade = QuietGate.start();
        gate = blade.node().gate();
    }

    @AfterEach
    void stop() {
        try {
            if (channel != null) {
                channel.finishAndReleaseAll();
            }
            blade.close();
        } finally {
            Blade.stopNode();
        }
    }

    @Test
    void aStreamedResponseKeepsItsRequestInFlightUntilItsLastContentIsWritten() {
        channel = new EmbeddedChannel(blade.newHandler());
        HttpRequest request = get("/a");
        channel.writeInbound(request);
        assertThat((Object) channel.readInbound()).isSameAs(request);
        assertThat(gate.inFlight()).isEqualTo(1);

        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        HttpUtil.setTransferEncodingChunked(head, true);
        channel.writeOutbound(head, new DefaultHttpContent(text("part")));
        assertThat(gate.inFlight()).as("headers and a chunk are not the end").isEqualTo(1);
        channel.writeOutbound(new DefaultLastHttpContent(text("end")));
        assertThat(gate.inFlight()).isZero();
        assertThat(blade.shedCount()).isZero();
    }

    @Test
    void aClosedGateAnswers503WithTheRetryHintAndReleasesTheRequest() {
        channel = new EmbeddedChannel(blade.newHandler());
        gate.close();
        ByteBuf body = text("hello");
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/a", body));

        assertThat((Object) channel.readInbound()).as("the application never sees it").isNull();
        assertThat(body.refCnt()).isZero();
        FullHttpResponse answer = channel.readOutbound();
        assertThat(answer.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
        String seconds = answer.headers().get(HttpHeaderNames.RETRY_AFTER);
        String millis = answer.headers().get(BladeHttpGate.RETRY_AFTER_MS_HEADER);
        assertThat(seconds).matches("[0-9]+");
        assertThat(millis).matches("[0-9]+");
        assertThat(Long.parseLong(millis)).isBetween(1L, 3_600_000L);
        assertThat(Long.parseLong(seconds)).as("rounded up").isEqualTo((Long.parseLong(millis) + 999) / 1000);
        assertThat(answer.headers().get(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo("0");
        assertThat(answer.headers().get(HttpHeaderNames.CACHE_CONTROL)).isEqualTo("no-store");
        assertThat(answer.headers().contains(HttpHeaderNames.CONNECTION)).isFalse();
        answer.release();
        assertThat(channel.isOpen()).isTrue();
        assertThat(blade.shedCount()).isEqualTo(1);
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void theContentOfAShedRequestIsReleasedUpToItsLastAndTheNextRequestPasses() {
        channel = new EmbeddedChannel(blade.newHandler());
        gate.close();
        ByteBuf part = text("part");
        ByteBuf last = text("last");
        channel.writeInbound(post("/a"), new DefaultHttpContent(part), new DefaultLastHttpContent(last));
        assertThat((Object) channel.readInbound()).isNull();
        assertThat(part.refCnt()).isZero();
        assertThat(last.refCnt()).isZero();
        ((FullHttpResponse) channel.readOutbound()).release();

        gate.open();
        HttpRequest next = post("/b");
        HttpContent content = new DefaultLastHttpContent(text("body"));
        channel.writeInbound(next, content);
        assertThat((Object) channel.readInbound()).isSameAs(next);
        assertThat((Object) channel.readInbound()).as("its content is not dropped").isSameAs(content);
        content.release();
    }

    @Test
    void theConnectionStaysUsableAfterAShedRequest() {
        channel = new EmbeddedChannel(new HttpServerCodec(), blade.newHandler());
        gate.close();
        channel.writeInbound(text("POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"));
        assertThat(outboundText()).startsWith("HTTP/1.1 503 Service Unavailable\r\n").contains("retry-after: ")
            .contains("Blade-Retry-After-Ms: ").contains("content-length: 0").doesNotContain("connection");
        assertThat(channel.isOpen()).isTrue();

        gate.open();
        channel.writeInbound(text("GET /b HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat(((HttpRequest) channel.readInbound()).uri()).isEqualTo("/b");
        assertThat((Object) channel.readInbound()).isInstanceOf(LastHttpContent.class);
        assertThat(gate.inFlight()).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET /a HTTP/1.0\r\n\r\n",
        "POST /a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"})
    void aShedRequestThatEndsTheConnectionClosesIt(String request) {
        channel = new EmbeddedChannel(new HttpServerCodec(), blade.newHandler());
        gate.close();
        channel.writeInbound(text(request));
        assertThat(outboundText()).contains(" 503 ").doesNotContain("100 Continue");
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void pipelinedRequestsAreEachCountedAndA503WaitsForTheResponsesBeforeIt() {
        channel = new EmbeddedChannel(new HttpServerCodec(), blade.newHandler());
        channel.writeInbound(text("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat(gate.inFlight()).isEqualTo(2);
        gate.close();
        channel.writeInbound(text("GET /3 HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat((Object) channel.readOutbound()).as("not before the responses to /1 and /2").isNull();

        channel.writeOutbound(ok("one"));
        assertThat(gate.inFlight()).isEqualTo(1);
        channel.writeOutbound(ok("two"));
        assertThat(gate.inFlight()).isZero();
        String out = outboundText();
        assertThat(out.indexOf("one")).isPositive().isLessThan(out.indexOf("two"));
        assertThat(out.indexOf(" 503 ")).isGreaterThan(out.indexOf("two"));
        assertThat(blade.shedCount()).isEqualTo(1);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void interimResponsesAreNotTheLastContent() {
        channel = new EmbeddedChannel(blade.newHandler());
        channel.writeInbound(post("/a"));
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        channel.writeOutbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.PROCESSING),
            LastHttpContent.EMPTY_LAST_CONTENT);
        assertThat(gate.inFlight()).isEqualTo(1);
        channel.writeOutbound(ok("done"));
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void switchingProtocolsEndsTheRequest() {
        channel = new EmbeddedChannel(blade.newHandler());
        channel.writeInbound(get("/ws"));
        channel.writeOutbound(
            new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS));
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void closingTheChannelLeavesForEveryRequestInFlightAndDropsQueuedAnswers() {
        channel = new EmbeddedChannel(blade.newHandler());
        channel.writeInbound(get("/1"), get("/2"));
        gate.close();
        channel.writeInbound(get("/3"));
        assertThat(gate.inFlight()).isEqualTo(2);

        channel.close();
        assertThat(gate.inFlight()).isZero();
        assertThat((Object) channel.readOutbound()).isNull();
    }

    @Test
    void aLastContentWriteThatFailsLeavesOnce() {
        channel = new EmbeddedChannel(blade.newHandler());
        channel.writeInbound(get("/a"));
        channel.write(ok("never flushed"));
        assertThat(gate.inFlight()).isEqualTo(1);

        channel.close(); // fails the pending write; its listener leaves, channelInactive finds nothing left
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void anExceptionLeavesForEveryRequestInFlightAndTheLaterResponseIsNotCounted() {
        channel = new EmbeddedChannel(blade.newHandler());
        channel.writeInbound(get("/1"), get("/2"));
        assertThat(gate.inFlight()).isEqualTo(2);

        channel.pipeline().fireExceptionCaught(new IOException("boom"));
        assertThatThrownBy(channel::checkException).hasMessage("boom");
        assertThat(gate.inFlight()).isZero();

        channel.writeInbound(get("/3"));
        channel.writeOutbound(ok("1"), ok("2"));
        assertThat(gate.inFlight()).as("/3 is still in flight; /1 and /2 left once").isEqualTo(1);
        channel.writeOutbound(ok("3"));
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void removingTheHandlerLeavesForEveryRequestInFlight() {
        BladeHttpHandler handler = blade.newHandler();
        channel = new EmbeddedChannel(handler);
        channel.writeInbound(get("/1"));
        channel.pipeline().remove(handler);
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void aDisabledGatePassesEveryRequest() {
        BladeHttpGate disabled = BladeHttpGate.start(BladeOptions.builder().enabled(false).build());
        assertThat(disabled.isPassThrough()).isTrue();
        channel = new EmbeddedChannel(disabled.newHandler());
        gate.close();
        HttpRequest request = get("/a");
        channel.writeInbound(request);
        assertThat((Object) channel.readInbound()).isSameAs(request);
        channel.writeOutbound(ok("a"));
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void aClosedGateBecomesAPassThrough() {
        channel = new EmbeddedChannel(blade.newHandler());
        blade.close();
        assertThat(blade.isPassThrough()).isTrue();
        gate.close();
        HttpRequest request = get("/a");
        channel.writeInbound(request);
        assertThat((Object) channel.readInbound()).isSameAs(request);
        assertThat(blade.isGateOpen()).isTrue();
    }

    private static HttpRequest get(String uri) {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
    }

    private static HttpRequest post(String uri) {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri);
    }

    private static FullHttpResponse ok(String body) {
        FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, text(body));
        HttpUtil.setContentLength(ok, body.length());
        return ok;
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    /** The bytes written so far, as text; each buffer released. */
    private String outboundText() {
        StringBuilder out = new StringBuilder();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            out.append(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
        return out.toString();
    }
}
