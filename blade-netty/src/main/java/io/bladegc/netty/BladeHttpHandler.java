package io.bladegc.netty;

import io.bladegc.api.BladeNode;
import io.bladegc.api.Gate;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * The gate of one HTTP channel, made by {@link BladeHttpGate#newHandler()}; place it right after the HTTP codec
 * ({@code HttpServerCodec}, or {@code Http2StreamFrameToHttpObjectCodec} in an HTTP/2 stream's child channel), before
 * any handler that pairs requests with responses (keep-alive, compression, aggregation), so that those never see a
 * shed request.
 *
 * <ul>
 *   <li>An inbound {@link HttpRequest} enters the gate and goes on when the gate is open. When it is closed, the
 *       request and the rest of its content, up to its {@link LastHttpContent}, are released here and answered
 *       {@code 503} (see {@link BladeHttpGate}); the connection stays open unless the request asked to close it
 *       ({@code Connection: close}, HTTP/1.0 without keep-alive), expected {@code 100-continue} with content still to
 *       come (the client may never send that content), or could not be decoded.</li>
 *   <li>An admitted request leaves the gate when the write of its response's {@link LastHttpContent} (a
 *       {@code FullHttpResponse} is one) completes, successfully or not. Interim responses ({@code 1xx} but
 *       {@code 101 Switching Protocols}) are not its response.</li>
 *   <li>HTTP/1.1 pipelining: responses come in the order of their requests, so each last content written is the
 *       oldest waiting request's; every admitted request is counted, and a {@code 503} for a request that came after
 *       admitted ones waits for their responses.</li>
 *   <li>When the channel closes, the handler is removed, or an exception reaches it, every request of the channel
 *       still in flight leaves the gate at once (a channel that failed may never answer, and would hold every drain
 *       until its timeout); a response written later for one of them is no longer counted.</li>
 * </ul>
 *
 * <p>Not {@code @Sharable}: it keeps the state of its channel, and Netty calls it on that channel's event loop only.
 */
public final class BladeHttpHandler extends ChannelDuplexHandler {
    /** A request that is in flight through the gate until its response's last content is written. */
    private static final Object IN_FLIGHT = new Object();
    /** A request that was in flight and left the gate before its response (exception); its response is not counted. */
    private static final Object LEFT = new Object();

    private final BladeHttpGate owner;
    private final ChannelFutureListener leave = written -> leave();
    /**
     * What each request read on this channel still waits for, oldest first: {@link #IN_FLIGHT} or {@link #LEFT} for
     * an admitted request (its response is the application's), a {@link Shed} answer for a shed one. Its head is
     * never a {@code Shed}: those are written as soon as they reach the head.
     */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>(2);
    /** The gate admitted requests entered. */
    private Gate gate;
    /** Whether the rest of a shed request's content is being dropped. */
    private boolean discarding;
    /** Whether an interim response was written without its last content. */
    private boolean interim;

    BladeHttpHandler(BladeHttpGate owner) {
        this.owner = owner;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            BladeNode n = owner.node();
            discarding = false;
            if (n == null) {
                ctx.fireChannelRead(msg);
            } else if (n.gate().tryEnter()) {
                gate = n.gate();
                waiting.add(IN_FLIGHT);
                ctx.fireChannelRead(msg);
            } else {
                shed(ctx, n, request);
            }
        } else if (discarding && msg instanceof HttpContent) {
            discarding = !(msg instanceof LastHttpContent);
            drop(ctx, msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private void shed(ChannelHandlerContext ctx, BladeNode n, HttpRequest request) {
        boolean whole = request instanceof LastHttpContent;
        boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess()
            && (whole || !HttpUtil.is100ContinueExpected(request));
        Shed answer = new Shed(owner.shed(n, request.protocolVersion(), keepAlive), keepAlive);
        discarding = !whole;
        drop(ctx, request);
        if (waiting.isEmpty()) {
            answer.writeAndFlush(ctx);
        } else {
            waiting.add(answer);
        }
    }

    /** Releases an inbound message that goes no further, and asks for more when the channel does not read by itself. */
    private static void drop(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
        if (!ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response && isInterim(response.status())) {
            interim = !(msg instanceof LastHttpContent);
            ctx.write(msg, promise);
            return;
        }
        if (!(msg instanceof LastHttpContent) || interim || waiting.isEmpty()) {
            interim &= !(msg instanceof LastHttpContent);
            ctx.write(msg, promise);
            return;
        }
        ChannelPromise p = promise;
        if (waiting.remove() == IN_FLIGHT) {
            p = promise.unvoid();
            p.addListener(leave);
        }
        ctx.write(msg, p);
        while (waiting.peek() instanceof Shed answer) {
            waiting.remove();
            answer.write(ctx); // flushed with the response before it
        }
    }

    private static boolean isInterim(HttpResponseStatus status) {
        return status.codeClass() == HttpStatusClass.INFORMATIONAL
            && status.code() != HttpResponseStatus.SWITCHING_PROTOCOLS.code();
    }

    private void leave() {
        gate.exit();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        int n = waiting.size();
        for (int i = 0; i < n; i++) {
            Object w = waiting.remove();
            if (w == IN_FLIGHT) {
                leave();
                w = LEFT;
            }
            waiting.add(w);
        }
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        leaveAll();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        leaveAll();
    }

    /** The channel is done with HTTP: every request still in flight leaves, and shed answers not written are dropped. */
    private void leaveAll() {
        for (Object w; (w = waiting.poll()) != null; ) {
            if (w == IN_FLIGHT) {
                leave();
            } else if (w instanceof Shed answer) {
                answer.drop();
            }
        }
    }

    /** The {@code 503} of a shed request, and whether the connection stays open after it. */
    private record Shed(FullHttpResponse response, boolean keepAlive) {
        void writeAndFlush(ChannelHandlerContext ctx) {
            closeUnlessKeptAlive(ctx.writeAndFlush(response));
        }

        void write(ChannelHandlerContext ctx) {
            closeUnlessKeptAlive(ctx.write(response));
        }

        private void closeUnlessKeptAlive(ChannelFuture written) {
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }

        void drop() {
            ReferenceCountUtil.release(response);
        }
    }
}
