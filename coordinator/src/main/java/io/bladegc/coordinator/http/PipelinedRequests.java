package io.bladegc.coordinator.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Map;

/**
 * Keeps HTTP/1.1 pipelining correct and bounded when answers are asynchronous: passes one request at a time to the
 * handler behind it and holds the ones that arrive meanwhile, so responses leave in the order the requests came even
 * when an acquire long-poll answers after a later request would have. Every request passed on is answered before the
 * connection closes; a request that is not passed on is never executed.
 *
 * <p>Bounded: while requests are held, or while the client does not read its answers (the channel is not writable),
 * nothing more is read from the connection (TCP pushes back), and the next request is passed on only once the channel
 * is writable again. One read may still bring many requests at once; the {@value #MAX_HELD} after the one being
 * answered are held, the next one is answered {@code 503 UNAVAILABLE} in its turn (after the answers before it), and
 * it and everything after it is dropped unexecuted and the connection closed, so a connection never holds more than a
 * few requests. A {@link FinalAnswer} from the handlers ahead (a malformed, oversized or too slow request) takes its
 * turn the same way. A response that closes the connection ({@code Connection: close}) ends it too: requests held
 * behind it are dropped unexecuted. One instance per channel; event-loop thread only.
 */
public final class PipelinedRequests extends ChannelDuplexHandler {
    /** How many requests a connection may have waiting behind the one being answered. */
    public static final int MAX_HELD = 8;

    private final ArrayDeque<FullHttpRequest> held = new ArrayDeque<>();
    private boolean answering;
    /** Nothing more is executed on this connection: a final answer is due, or the connection is closing. */
    private boolean ending;
    private FinalAnswer last;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ending) {
            ReferenceCountUtil.release(msg);
        } else if (msg instanceof FinalAnswer answer) {
            end(ctx, answer);
        } else if (!(msg instanceof FullHttpRequest request)) {
            ctx.fireChannelRead(msg);
        } else if (!answering && held.isEmpty() && ctx.channel().isWritable()) {
            answering = true;
            ctx.fireChannelRead(request);
        } else if (held.size() < MAX_HELD) {
            held.addLast(request);
            ctx.channel().config().setAutoRead(false);
        } else {
            request.release();
            end(ctx, new FinalAnswer(new ApiException(HttpResponseStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE",
                "too many pipelined requests: at most " + (MAX_HELD + 1) + " may wait for their answers on one "
                    + "connection; this request and every later one on this connection were not executed "
                    + "(send them again)", Map.of(HttpHeaderNames.RETRY_AFTER.toString(), "1"))));
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean closing = msg instanceof HttpResponse response && !HttpUtil.isKeepAlive(response);
        ctx.write(msg, promise);
        if (msg instanceof LastHttpContent && answering) {
            answering = false;
            if (closing) { // the connection closes after this answer: nothing held is executed
                ending = true;
                last = null;
                releaseHeld();
            }
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

    /** Nothing after {@code answer} is read or executed; it is sent once the requests before it are answered. */
    private void end(ChannelHandlerContext ctx, FinalAnswer answer) {
        ending = true;
        last = answer;
        ctx.channel().config().setAutoRead(false);
        next(ctx);
    }

    /**
     * Passes the next held request on, or sends the final answer when none is held, or resumes reading; only when
     * the client keeps up.
     */
    private void next(ChannelHandlerContext ctx) {
        if (answering || !ctx.channel().isActive()) {
            return;
        }
        FullHttpRequest request = held.peekFirst();
        if (request == null && last != null) {
            FinalAnswer answer = last;
            last = null;
            Responses.send(ctx, Responses.error(answer.problem()), false);
            return;
        }
        if (!ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(false); // resumed by channelWritabilityChanged
            return;
        }
        if (request == null) {
            if (!ending) {
                ctx.channel().config().setAutoRead(true);
            }
            return;
        }
        held.pollFirst();
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
