package io.bladegc.coordinator.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Aggregates a request into one {@link io.netty.handler.codec.http.FullHttpRequest} of at most {@code maxBytes} of
 * body. A larger one (announced by {@code Content-Length}, or found out while reading chunks) is answered 413 with a
 * JSON message and the connection is closed, so the rest of the body is never read.
 */
public final class BodyLimit extends HttpObjectAggregator {
    private final int maxBytes;

    public BodyLimit(int maxBytes) {
        super(maxBytes, true); // a refused "Expect: 100-continue" closes the connection too
        this.maxBytes = maxBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        Responses.send(ctx, Responses.error(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "PAYLOAD_TOO_LARGE",
            "request body larger than " + maxBytes + " bytes"), false);
    }
}
