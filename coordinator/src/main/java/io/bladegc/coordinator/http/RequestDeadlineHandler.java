package io.bladegc.coordinator.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes connections of clients that are too slow or gone:
 * <ul>
 *   <li><b>request deadline</b>: from the first bytes of a request, the whole request must arrive within
 *       {@code requestTimeoutMillis}, however steadily it trickles in (slowloris); otherwise a {@link FinalAnswer}: 408
 *       after the answers to the requests before it, then close;</li>
 *   <li><b>idle</b>: an {@link IdleStateEvent} (from the {@code IdleStateHandler} ahead in the pipeline) closes a
 *       connection with no request in progress; a request in progress (an acquire long-poll) is bounded by its own
 *       wait instead.</li>
 * </ul>
 * Sits after the aggregator: every socket read ends in {@code channelReadComplete}, every finished request arrives
 * as a {@link FullHttpRequest}. Bytes of a next request that arrive in the same read as the end of the previous one
 * are covered by the idle timeout. One instance per channel; event-loop thread only.
 */
public final class RequestDeadlineHandler extends ChannelDuplexHandler {
    private final long requestTimeoutMillis;
    private ScheduledFuture<?> deadline;
    private boolean requestEndedInThisRead;
    private int inProgress;

    public RequestDeadlineHandler(long requestTimeoutMillis) {
        if (requestTimeoutMillis < 1) {
            throw new IllegalArgumentException("requestTimeoutMillis must be positive: " + requestTimeoutMillis);
        }
        this.requestTimeoutMillis = requestTimeoutMillis;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FullHttpRequest) {
            requestEndedInThisRead = true;
            inProgress++;
            cancelDeadline();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!requestEndedInThisRead && deadline == null && ctx.channel().isActive()) {
            deadline = ctx.executor().schedule(() -> expired(ctx), requestTimeoutMillis, TimeUnit.MILLISECONDS);
        }
        requestEndedInThisRead = false;
        ctx.fireChannelReadComplete();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent && inProgress > 0) {
            inProgress--;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (inProgress == 0) {
                ctx.close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelDeadline();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelDeadline();
    }

    private void expired(ChannelHandlerContext ctx) {
        deadline = null;
        if (ctx.channel().isActive()) {
            ctx.fireChannelRead(new FinalAnswer(new ApiException(HttpResponseStatus.REQUEST_TIMEOUT,
                "REQUEST_TIMEOUT", "request not received within " + requestTimeoutMillis + " ms")));
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
