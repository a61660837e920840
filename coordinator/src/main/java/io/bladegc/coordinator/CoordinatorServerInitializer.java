package io.bladegc.coordinator;

import io.bladegc.coordinator.http.BearerToken;
import io.bladegc.coordinator.http.BodyLimit;
import io.bladegc.coordinator.http.ConnectionActivity;
import io.bladegc.coordinator.http.ConnectionLimit;
import io.bladegc.coordinator.http.MalformedRequestHandler;
import io.bladegc.coordinator.http.PipelinedRequests;
import io.bladegc.coordinator.http.RequestDeadlineHandler;
import io.bladegc.coordinator.slots.SlotService;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The pipeline of one connection, and the limits that protect the coordinator, all here rather than in handlers:
 * <pre>
 *   idle        IdleStateHandler          no traffic for idleTimeout -> event (closed unless a request is in progress)
 *   http        HttpServerCodec           request line <= 4096 bytes (else 414), headers <= 8192 bytes (else 431),
 *                                         strict framing: Content-Length with Transfer-Encoding, duplicate or bad
 *                                         Content-Length, bare LF line ends are decode failures (400)
 *   body        BodyLimit                 aggregates, body <= 64 KiB (else 413 and close)
 *   activity    ConnectionActivity        when the connection was last busy, for ConnectionLimit
 *   deadline    RequestDeadlineHandler    a request must arrive within requestTimeout of its first byte (else 408)
 *   malformed   MalformedRequestHandler   decode failures -> 400/414/431 and close
 *   pipelining  PipelinedRequests         one request at a time, answers in order, at most 8 waiting (else 503)
 *   api         CoordinatorHandler        the routes
 * </pre>
 * The handlers ahead of {@code pipelining} never answer themselves: 400, 408, 413, 414 and 431 go down the pipeline
 * as a {@link io.bladegc.coordinator.http.FinalAnswer} in the place of their request, so they leave after the
 * answers to the requests before them, and a request read before a bad one is always answered.
 * Beyond {@link CoordinatorConfig#maxConnections()} a new connection takes the place of the one idle longest, or is
 * closed as soon as it is accepted when none has been idle for a second ({@link ConnectionLimit}).
 */
public final class CoordinatorServerInitializer extends ChannelInitializer<SocketChannel> {
    /** The longest request line. */
    public static final int MAX_INITIAL_LINE = 4096;
    /** The most bytes of headers. */
    public static final int MAX_HEADER_SIZE = 8192;
    /** The largest chunk the decoder hands on at once. */
    public static final int MAX_CHUNK_SIZE = 8192;
    /** The largest request body. */
    public static final int MAX_BODY = 64 * 1024;

    private final CoordinatorConfig config;
    private final SlotService slots;
    private final BearerToken token;
    private final ChannelGroup channels;
    private final ConnectionLimit limit;

    /**
     * @param config   limits, timeouts and token
     * @param slots    the slot service every connection talks to
     * @param channels where accepted connections are registered (for shutdown)
     */
    public CoordinatorServerInitializer(CoordinatorConfig config, SlotService slots, ChannelGroup channels) {
        this.config = config;
        this.slots = slots;
        this.token = BearerToken.of(config.token());
        this.channels = channels;
        this.limit = new ConnectionLimit(config.maxConnections());
    }

    /** @return the decoder settings: the size limits, and strict parsing whatever the system properties say */
    public static HttpDecoderConfig decoderConfig() {
        return new HttpDecoderConfig()
            .setMaxInitialLineLength(MAX_INITIAL_LINE)
            .setMaxHeaderSize(MAX_HEADER_SIZE)
            .setMaxChunkSize(MAX_CHUNK_SIZE)
            .setValidateHeaders(true)
            .setAllowDuplicateContentLengths(false)
            .setStrictLineParsing(true)
            .setUseRfc9112TransferEncoding(true);
    }

    /** @return connections open now */
    int openConnections() {
        return limit.open();
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        configure(ch.pipeline());
        if (!limit.admit(ch, ch.pipeline().get(ConnectionActivity.class))) {
            ch.close();
            return;
        }
        ch.closeFuture().addListener(f -> limit.closed(ch));
        channels.add(ch);
    }

    /** Sets up one connection's pipeline (also used by tests on an embedded channel). */
    void configure(ChannelPipeline pipeline) {
        pipeline
            .addLast("idle", new IdleStateHandler(0, 0, config.idleTimeoutMillis(), TimeUnit.MILLISECONDS))
            .addLast("http", new HttpServerCodec(decoderConfig()))
            .addLast("body", new BodyLimit(MAX_BODY))
            .addLast("activity", new ConnectionActivity(System::nanoTime))
            .addLast("deadline", new RequestDeadlineHandler(config.requestTimeoutMillis()))
            .addLast("malformed", new MalformedRequestHandler())
            .addLast("pipelining", new PipelinedRequests())
            .addLast("api", new CoordinatorHandler(slots, token, config.maxWaitMillis()));
    }
}
