package io.bladegc.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.Blade;
import io.bladegc.api.Gate;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real servers on 127.0.0.1, HTTP/1.1 and HTTP/2 (h2c with prior knowledge): a slow streamed response in flight when
 * the node's drain closes the gate is never cut and the drain waits for it; a new request meanwhile is shed with
 * {@code 503} and the retry hint; once the gate opens, requests are served again.
 */
class RealServerTest {
    private static final long WAIT_SECONDS = 20;

    private final TestApp app = new TestApp();
    private NioEventLoopGroup group;
    private BladeHttpGate blade;
    private Gate gate;
    private Channel server;

    @BeforeEach
    void start() {
        blade = QuietGate.start();
        gate = blade.node().gate();
        group = new NioEventLoopGroup(2);
    }

    @AfterEach
    void stop() throws Exception {
        app.release.countDown();
        try {
            if (server != null) {
                server.close().sync();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            blade.close();
        } finally {
            gate.open();
            Blade.stopNode();
        }
    }

    @Test
    void http11() throws Exception {
        serve(ch -> ch.pipeline().addLast(new HttpServerCodec(), blade.newHandler(), app));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        InetSocketAddress at = (InetSocketAddress) server.localAddress();
        Function<String, CompletableFuture<Answer>> send = path -> client.sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + at.getPort() + path)).build(),
                BodyHandlers.ofString())
            .thenApply(r -> new Answer(r.statusCode(), r.headers().map(), r.body()));

        slowResponseAcrossAGateClose(send);
    }

    @Test
    void http2PriorKnowledge() throws Exception {
        serve(ch -> ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
            new Http2MultiplexHandler(initializer(stream -> stream.pipeline()
                .addLast(new Http2StreamFrameToHttpObjectCodec(true), blade.newHandler(), app)))));
        Channel connection = new Bootstrap().group(group).channel(NioSocketChannel.class)
            .handler(initializer(ch -> ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().build(),
                new Http2MultiplexHandler(initializer(pushed -> { })))))
            .connect(server.localAddress()).sync().channel();
        try {
            slowResponseAcrossAGateClose(path -> http2Get(connection, path));
        } finally {
            connection.close().sync();
        }
    }

    private void slowResponseAcrossAGateClose(Function<String, CompletableFuture<Answer>> send) throws Exception {
        CompletableFuture<Answer> slow = send.apply(TestApp.SLOW);
        assertThat(app.slowStarted.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(gate.inFlight()).isEqualTo(1);

        gate.close(); // what the node's drain does: close, then wait for the requests in flight
        // on a thread of its own: JDK 25's HttpClient completes responses on the common pool, which a wait there
        // would hold up (on 2 cores the pool has one thread), so the 503 came only when the wait timed out
        CompletableFuture<Long> drained = new CompletableFuture<>();
        Thread drainer = new Thread(() -> drained.complete(
            gate.awaitDrained(Duration.ofSeconds(WAIT_SECONDS)) ? System.nanoTime() : -1), "test-drain");
        drainer.setDaemon(true);
        drainer.start();
        Answer shed = send.apply("/fast").get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(shed.status()).isEqualTo(503);
        assertThat(shed.header("retry-after")).matches("[0-9]+");
        assertThat(shed.header("blade-retry-after-ms")).matches("[0-9]+");
        assertThat(drained).as("the slow response is in flight").isNotDone();
        assertThat(slow).isNotDone();

        app.release.countDown();
        Answer whole = slow.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(whole.status()).isEqualTo(200);
        assertThat(whole.body()).as("never cut").isEqualTo(TestApp.FIRST + TestApp.LAST);
        assertThat(drained.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("drained after the last content's write")
            .isGreaterThanOrEqualTo(app.lastWriteNanos);

        gate.open();
        Answer served = send.apply("/fast").get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(served.status()).isEqualTo(200);
        assertThat(served.body()).isEqualTo("ok");
        assertThat(blade.shedCount()).isEqualTo(1);
    }

    private void serve(ChannelInitializerBody<Channel> pipeline) throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
            .childHandler(initializer(pipeline))
            .bind("127.0.0.1", 0).sync().channel();
    }

    /** A GET on a new stream of the HTTP/2 connection; its response aggregated. */
    private static CompletableFuture<Answer> http2Get(Channel connection, String path) {
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        SimpleChannelInboundHandler<FullHttpResponse> collect = new SimpleChannelInboundHandler<>() {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
                Map<String, java.util.List<String>> headers = new java.util.HashMap<>();
                response.headers().forEach(h -> headers.computeIfAbsent(h.getKey().toLowerCase(),
                    k -> new java.util.ArrayList<>()).add(h.getValue()));
                answer.complete(new Answer(response.status().code(), headers,
                    response.content().toString(StandardCharsets.US_ASCII)));
            }
        };
        Http2StreamChannel stream = new Http2StreamChannelBootstrap(connection)
            .handler(initializer(ch -> ch.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(false),
                new HttpObjectAggregator(1 << 16), collect)))
            .open().syncUninterruptibly().getNow();
        FullHttpRequest request =
            new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path, Unpooled.EMPTY_BUFFER);
        request.headers().set(HttpHeaderNames.HOST, "127.0.0.1");
        stream.writeAndFlush(request);
        return answer;
    }

    /** What {@link ChannelInitializer#initChannel} does. */
    @FunctionalInterface
    private interface ChannelInitializerBody<C extends Channel> {
        void init(C channel);
    }

    private static <C extends Channel> ChannelHandler initializer(ChannelInitializerBody<C> body) {
        return new ChannelInitializer<C>() {
            @Override
            protected void initChannel(C channel) {
                body.init(channel);
            }
        };
    }

    /** A response as the test reads it; header names in lower case. */
    private record Answer(int status, Map<String, java.util.List<String>> headers, String body) {
        String header(String name) {
            return headers.getOrDefault(name, java.util.List.of()).stream().findFirst().orElse(null);
        }
    }
}
