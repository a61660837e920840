package io.bladegc.coordinator.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Keeps HTTP/1.1 pipelining correct and bounded when answers are asynchronous: passes one request at a time to the
 * handler behind it and holds the ones that arrive meanwhile, so responses leave in the order the requests came even
 * when an acquire long-poll answers after a later request would have.
 *
 * <p>Bounded: while requests are held, or while the client does not read its answers (the channel is not writable),
 * nothing more is read from the connection (TCP pushes back), and the next request is passed on only once the channel
 * is writable again; a client that still gets more than {@link #MAX_HELD} requests held is disconnected. So a
 * connection never holds more than a few requests and one unread answer above the write buffer's high-water mark.
 * One instance per channel; event-loop thread only.
 */
public final class PipelinedRequests extends ChannelDuplexHandler {
    /** How many requests a connection may have waiting behind the one being answered. */
    public static final int MAX_HELD = 8;

    private final ArrayDeque<FullHttpRequest> held = new ArrayDeque<>();
    private boolean answering;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (!answering && held.isEmpty() && ctx.channel().isWritable()) {
            answering = true;
            ctx.fireChannelRead(request);
        } else if (held.size() < MAX_HELD) {
            held.addLast(request);
            ctx.channel().config().setAutoRead(false);
        } else {
            request.release();
            ctx.close();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg, promise);
        if (msg instanceof LastHttpContent && answering) {
            answering = false;
            ctx.executor().execute(() -> next(ctx));
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            next(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseHeld();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseHeld();
    }

    /** Passes the next held request on, or resumes reading when none is held; only when the client keeps up. */
    private void next(ChannelHandlerContext ctx) {
        if (answering || !ctx.channel().isActive()) {
            return;
        }
        if (!ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(false); // resumed by channelWritabilityChanged
            return;
        }
        FullHttpRequest request = held.pollFirst();
        if (request == null) {
            ctx.channel().config().setAutoRead(true);
            return;
        }
        answering = true;
        ctx.fireChannelRead(request);
    }

    private void releaseHeld() {
        FullHttpRequest r;
        while ((r = held.pollFirst()) != null) {
            ReferenceCountUtil.release(r);
        }
    }
}
