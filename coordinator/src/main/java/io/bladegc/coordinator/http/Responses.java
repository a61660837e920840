package io.bladegc.coordinator.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Builds and sends the coordinator's responses. Bodies are unpooled heap buffers, so a response dropped on a closed
 * channel costs nothing but garbage. Stateless, thread-safe.
 */
public final class Responses {
    /** The content type of every JSON answer. */
    public static final String JSON = "application/json; charset=utf-8";

    private Responses() {
    }

    /** A JSON response. */
    public static FullHttpResponse json(HttpResponseStatus status, byte[] body) {
        return of(status, JSON, body);
    }

    /** A JSON error: {@code {"status": code, "message": message}}. */
    public static FullHttpResponse error(HttpResponseStatus status, String code, String message) {
        return json(status, Json.status(code, message));
    }

    /** The JSON error for {@code e}, with its extra headers. */
    public static FullHttpResponse error(ApiException e) {
        FullHttpResponse r = error(e.status(), e.code(), e.getMessage());
        e.headers().forEach((name, value) -> r.headers().set(name, value));
        return r;
    }

    /** A response with any content type. */
    public static FullHttpResponse of(HttpResponseStatus status, String contentType, byte[] body) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        HttpHeaders h = r.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, contentType);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        h.set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        h.set("X-Content-Type-Options", "nosniff");
        return r;
    }

    /** A plain-text response. */
    public static FullHttpResponse text(HttpResponseStatus status, String contentType, String body) {
        return of(status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Extra headers on {@code r}. */
    public static FullHttpResponse with(FullHttpResponse r, Map<String, String> headers) {
        headers.forEach((name, value) -> r.headers().set(name, value));
        return r;
    }

    /**
     * Writes and flushes {@code response}; marks it {@code Connection: close} and closes the channel after the write
     * unless {@code keepAlive}.
     */
    public static ChannelFuture send(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
        response.headers().set(HttpHeaderNames.CONNECTION,
            keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        ChannelFuture f = ctx.writeAndFlush(response);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
        return f;
    }
}
