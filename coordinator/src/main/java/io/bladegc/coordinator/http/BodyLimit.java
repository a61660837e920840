package io.bladegc.coordinator.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Aggregates a request into one {@link io.netty.handler.codec.http.FullHttpRequest} of at most {@code maxBytes} of
 * body. A larger one (announced by {@code Content-Length}, or found out while reading chunks) becomes a
 * {@link FinalAnswer}: 413 with a JSON message after the answers to the requests before it, then the connection
 * closes, so the rest of the body is never read. (A refused {@code Expect: 100-continue} is answered by the aggregator
 * itself, at once.)
 */
public final class BodyLimit extends HttpObjectAggregator {
    private final int maxBytes;

    public BodyLimit(int maxBytes) {
        super(maxBytes, true); // a refused "Expect: 100-continue" closes the connection too
        this.maxBytes = maxBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        ctx.fireChannelRead(new FinalAnswer(new ApiException(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
            "PAYLOAD_TOO_LARGE", "request body larger than " + maxBytes + " bytes")));
    }
}
