package io.bladegc.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The application behind the gate in the real-server tests, answering as each request arrives: {@value #SLOW}
 * streams {@value #FIRST} at once and {@value #LAST} once {@link #release} is counted down; anything else is
 * {@code 200 ok}. Request content is released unread.
 */
@Sharable
final class TestApp extends ChannelInboundHandlerAdapter {
    static final String SLOW = "/slow";
    static final String FIRST = "first,";
    static final String LAST = "last";

    /** Counted down when the slow response's first part is written. */
    final CountDownLatch slowStarted = new CountDownLatch(1);
    /** Count down to let the slow response end. */
    final CountDownLatch release = new CountDownLatch(1);
    /** {@link System#nanoTime()} just before the slow response's last content was written. */
    volatile long lastWriteNanos;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            if (request.uri().equals(SLOW)) {
                HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                HttpUtil.setTransferEncodingChunked(head, true);
                ctx.write(head);
                ctx.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(FIRST, StandardCharsets.US_ASCII)));
                slowStarted.countDown();
                endWhenReleased(ctx);
            } else {
                FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.copiedBuffer("ok", StandardCharsets.US_ASCII));
                HttpUtil.setContentLength(ok, 2);
                ctx.writeAndFlush(ok);
            }
        }
        ReferenceCountUtil.release(msg);
    }

    private void endWhenReleased(ChannelHandlerContext ctx) {
        if (release.getCount() > 0) {
            ctx.executor().schedule(() -> endWhenReleased(ctx), 5, TimeUnit.MILLISECONDS);
            return;
        }
        lastWriteNanos = System.nanoTime();
        ctx.writeAndFlush(new DefaultLastHttpContent(Unpooled.copiedBuffer(LAST, StandardCharsets.US_ASCII)));
    }
}
