package io.bladegc.coordinator.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.function.LongSupplier;

/**
 * What {@link ConnectionLimit} needs to know of one connection to choose which one makes room: when a request last came
 * in or an answer last went out, whether a request is being answered (a long-poll waits for its grant), and whether the
 * connection ever carried a request answered with 2xx. Sits behind the body aggregator, so it sees whole requests.
 *
 * <p>One instance per channel. Written on the channel's event loop only; read from any thread (volatile fields).
 */
public final class ConnectionActivity extends ChannelDuplexHandler {
    private final LongSupplier clock;
    private volatile long lastNanos;
    private volatile int unanswered;
    private volatile boolean served;

    /** @param clock the time in nanoseconds ({@code System::nanoTime}; another in tests) */
    public ConnectionActivity(LongSupplier clock) {
        this.clock = clock;
        this.lastNanos = clock.getAsLong();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof FullHttpRequest) {
            unanswered++; // single writer: the event loop
            lastNanos = clock.getAsLong();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse r && r.status().code() / 100 == 2) {
            served = true;
        }
        if (msg instanceof LastHttpContent) {
            unanswered = Math.max(0, unanswered - 1); // a 400 for a request that never came whole counts none
            lastNanos = clock.getAsLong();
        }
        ctx.write(msg, promise);
    }

    /** @return how long nothing was read or answered, in nanoseconds; 0 while a request waits for its answer */
    long idleNanos() {
        return unanswered > 0 ? 0 : Math.max(0, clock.getAsLong() - lastNanos);
    }

    /** @return whether a request on this connection was ever answered with 2xx */
    boolean served() {
        return served;
    }
}
