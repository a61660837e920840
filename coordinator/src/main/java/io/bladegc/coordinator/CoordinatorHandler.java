package io.bladegc.coordinator;

import io.bladegc.coordinator.http.ApiException;
import io.bladegc.coordinator.http.BearerToken;
import io.bladegc.coordinator.http.Json;
import io.bladegc.coordinator.http.MemberKeyHeader;
import io.bladegc.coordinator.http.RequestBodies;
import io.bladegc.coordinator.http.Responses;
import io.bladegc.coordinator.http.Route;
import io.bladegc.coordinator.slots.SlotReply;
import io.bladegc.coordinator.slots.SlotService;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * Routes one request at a time ({@link io.bladegc.coordinator.http.PipelinedRequests} sits ahead) to the
 * {@link SlotService} and writes the JSON answer: 404 / 405 / 401 / 400 before anything reaches the service, then the
 * service's answer mapped to a status code (403 for a node call without the node's {@link MemberKeyHeader member
 * key}) (see {@code coordinator/API.md}). Answers come back on the channel's event
 * loop. When the connection closes while an acquire long-polls, the poll is cancelled. One instance per channel.
 */
final class CoordinatorHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final System.Logger LOG = System.getLogger(CoordinatorHandler.class.getName());
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final SlotService slots;
    private final BearerToken token;
    private final long maxWaitMillis;
    private CompletableFuture<?> pending;

    CoordinatorHandler(SlotService slots, BearerToken token, long maxWaitMillis) {
        this.slots = slots;
        this.token = token;
        this.maxWaitMillis = maxWaitMillis;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        String metric = "unknown";
        try {
            Route route = Route.match(request.method(), request.uri());
            metric = route.endpoint().metricName();
            if (route.endpoint().needsToken() && !token.accepts(request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
                throw new ApiException(HttpResponseStatus.UNAUTHORIZED, "UNAUTHORIZED",
                    "this call needs 'Authorization: Bearer <token>' with the coordinator's token",
                    Map.of(HttpHeaderNames.WWW_AUTHENTICATE.toString(), "Bearer realm=\"blade-coordinator\""));
            }
            CompletableFuture<FullHttpResponse> answer = dispatch(route, request);
            String routeMetric = metric;
            answer.whenCompleteAsync((response, failure) -> {
                pending = null;
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
                if (!(cause instanceof CancellationException)) { // cancelled: the connection is gone
                    send(ctx, routeMetric, response != null ? response : failed(cause), keepAlive);
                }
            }, ctx.executor());
        } catch (ApiException e) {
            send(ctx, metric, Responses.error(e), keepAlive);
        }
    }

    private CompletableFuture<FullHttpResponse> dispatch(Route route, FullHttpRequest request) throws ApiException {
        switch (route.endpoint()) {
            case HEALTH:
                return CompletableFuture.completedFuture(slots.isOpen()
                    ? Responses.json(HttpResponseStatus.OK, Json.status("UP", "coordinator running"))
                    : Responses.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "DOWN", "coordinator shutting down"));
            case METRICS:
                return CompletableFuture.completedFuture(
                    Responses.text(HttpResponseStatus.OK, PROMETHEUS_TEXT, slots.metrics().scrape()));
            case CLUSTER:
                return track(slots.cluster(), s -> Responses.json(HttpResponseStatus.OK,
                    Json.cluster(s, slots.loadBalancer().describe())));
            default:
                break;
        }
        String node = route.validNode();
        String key = MemberKeyHeader.read(request.headers());
        ByteBuf body = request.content();
        switch (route.endpoint()) {
            case JOIN:
                RequestBodies.none(body);
                return reply(slots.join(node, key));
            case HEARTBEAT:
                RequestBodies.Heartbeat h = RequestBodies.heartbeat(body);
                return reply(slots.heartbeat(node, key, h.dueInMillis(), h.fullDueInMillis()));
            case LEAVE:
                RequestBodies.none(body);
                return reply(slots.leave(node, key));
            case ACQUIRE:
                RequestBodies.Acquire a = RequestBodies.acquire(body, maxWaitMillis);
                return reply(slots.acquire(node, key, a.ask(), a.waitMillis()));
            case RELEASE:
                RequestBodies.Release r = RequestBodies.release(body);
                return reply(slots.release(node, key, r.epoch(), r.pauseMillis()));
            case RENEW:
                return reply(slots.renew(node, key, RequestBodies.epoch(body)));
            case CANCEL:
                return reply(slots.cancel(node, key, RequestBodies.gcId(body)));
            default:
                throw new IllegalStateException("unrouted endpoint " + route.endpoint());
        }
    }

    private CompletableFuture<FullHttpResponse> reply(CompletableFuture<SlotReply> call) {
        return track(call, r -> {
            FullHttpResponse response = Responses.json(statusOf(r.kind()), Json.reply(r));
            return r.kind() == SlotReply.Kind.UNAVAILABLE
                ? Responses.with(response, Map.of(HttpHeaderNames.RETRY_AFTER.toString(), "1")) : response;
        });
    }

    /** Remembers the service's own future, so that a closed connection can cancel it (and its long-poll). */
    private <T> CompletableFuture<FullHttpResponse> track(CompletableFuture<T> call,
                                                          Function<T, FullHttpResponse> render) {
        pending = call;
        return call.thenApply(render);
    }

    static HttpResponseStatus statusOf(SlotReply.Kind kind) {
        return switch (kind) {
            case OK, GRANTED, QUEUED, CANCELLED, UNSCHEDULED -> HttpResponseStatus.OK;
            case UNKNOWN_NODE -> HttpResponseStatus.NOT_FOUND;
            case FORBIDDEN -> HttpResponseStatus.FORBIDDEN;
            case STALE_EPOCH, REJECTED -> HttpResponseStatus.CONFLICT;
            case UNAVAILABLE, NOT_LEADER -> HttpResponseStatus.SERVICE_UNAVAILABLE;
        };
    }

    private static FullHttpResponse failed(Throwable cause) {
        if (cause instanceof RejectedExecutionException) {
            return Responses.with(Responses.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "UNAVAILABLE",
                "the coordinator is shutting down"), Map.of(HttpHeaderNames.RETRY_AFTER.toString(), "1"));
        }
        LOG.log(System.Logger.Level.ERROR, "request failed", cause);
        return Responses.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR",
            "internal error: " + cause.getClass().getSimpleName());
    }

    private void send(ChannelHandlerContext ctx, String route, FullHttpResponse response, boolean keepAlive) {
        slots.metrics().request(route, response.status().code());
        Responses.send(ctx, response, keepAlive && slots.isOpen());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        CompletableFuture<?> call = pending;
        if (call != null) {
            pending = null;
            call.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(System.Logger.Level.DEBUG, () -> "closing " + ctx.channel() + ": " + cause);
        ctx.close();
    }
}
