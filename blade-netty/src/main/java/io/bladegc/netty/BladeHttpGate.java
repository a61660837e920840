package io.bladegc.netty;

import io.bladegc.api.AttachedEntry;
import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.Gate;
import io.bladegc.api.RetryAfter;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Puts a Netty HTTP server's requests through the Blade node's {@link Gate}. It makes one {@link BladeHttpHandler}
 * per channel ({@link #newHandler()}), to be placed right after the HTTP codec: a request admitted by the open gate
 * is in flight from its {@code HttpRequest} until the write of its response's last content completes (a streamed
 * response included), so the node's drain waits for it and never cuts it; while the gate is closed a new request is
 * answered {@code 503 Service Unavailable} before the application's handlers see it, with {@code Retry-After} (whole
 * seconds) and {@value #RETRY_AFTER_MS_HEADER} (milliseconds): the node's retry hint rounded up as the servlet
 * filter's, see {@link RetryAfter}. See {@code docs/netty.md}.
 *
 * <pre>{@code
 * BladeHttpGate blade = BladeHttpGate.start(BladeOptions.defaults());
 * // in the ChannelInitializer of each accepted channel:
 * ch.pipeline().addLast(new HttpServerCodec(), blade.newHandler(), new MyHandler());
 * }</pre>
 *
 * <p>{@link #start} joins the JVM's Blade node (the agent's, a servlet filter's, a gRPC interceptor's) or starts one
 * (GCI mode), with {@link Blade#attachEntry}. It never throws for a node it cannot reach: the gate is then a
 * pass-through whose handlers never shed, with one log line saying why.
 *
 * <p>Thread-safe: {@link #newHandler()} and the getters ({@link AttachedEntry}'s) may be called from any thread (each
 * channel's handler runs on its channel's event loop); {@link #close} is meant to be called once, when the server has
 * shut down.
 */
public final class BladeHttpGate extends AttachedEntry {
    /** Response header of a shed request with the retry hint in milliseconds, beside {@code Retry-After} in seconds. */
    public static final String RETRY_AFTER_MS_HEADER = RetryAfter.MILLIS_HEADER;

    private static final System.Logger LOG = System.getLogger(BladeHttpGate.class.getName());

    /** @param node a node whose gate this attached to, or {@code null} for a pass-through */
    BladeHttpGate(BladeNode node) {
        super(node);
    }

    /**
     * Joins the JVM's Blade node, or starts one with {@code options} (GCI mode), and attaches to its gate. Never
     * throws for the node: {@code enabled=false}, an agent that left Blade off ({@link Blade#AGENT_OFF_PROPERTY}) or
     * a node that cannot start leave a pass-through that never sheds, with one log line (logger
     * {@code io.bladegc.netty.BladeHttpGate}) saying why.
     *
     * @param options settings for a new node; ignored, but for {@code enabled}, when a node runs already (its own
     *                options apply)
     * @return the gate
     * @throws NullPointerException when {@code options} is null
     */
    public static BladeHttpGate start(BladeOptions options) {
        return new BladeHttpGate(Blade.attachEntry(options, LOG, "Blade Netty gate", "request").orElse(null));
    }

    /**
     * A handler for one channel: an HTTP/1.1 connection (after {@code HttpServerCodec}) or an HTTP/2 stream (after
     * {@code Http2StreamFrameToHttpObjectCodec} in the stream's child channel). Handlers keep per-channel state and
     * are not {@code @Sharable}: make one for each channel.
     *
     * @return a new handler of this gate
     */
    public BladeHttpHandler newHandler() {
        return new BladeHttpHandler(this);
    }

    /**
     * Counts a shed request and makes its answer: {@code 503}, the retry hint, {@code Content-Length: 0},
     * {@code Cache-Control: no-store}, and {@code Connection} as {@code keepAlive} asks.
     */
    FullHttpResponse shed(BladeNode n, HttpVersion version, boolean keepAlive) {
        long nanos = countShed(n);
        FullHttpResponse answer =
            new DefaultFullHttpResponse(version, HttpResponseStatus.SERVICE_UNAVAILABLE, Unpooled.EMPTY_BUFFER);
        HttpHeaders headers = answer.headers();
        headers.set(HttpHeaderNames.RETRY_AFTER, RetryAfter.seconds(nanos));
        headers.set(RETRY_AFTER_MS_HEADER, RetryAfter.millis(nanos));
        headers.set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        HttpUtil.setContentLength(answer, 0);
        HttpUtil.setKeepAlive(answer, keepAlive);
        return answer;
    }
}
