package io.bladegc.coordinator.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * Turns requests the decoder could not frame into a {@link FinalAnswer} that ends their connection: an over-long
 * request line (414), over-long headers (431), and everything else the decoder rejects (400), which includes the
 * request-smuggling shapes: {@code Content-Length} together with {@code Transfer-Encoding}, conflicting
 * {@code Content-Length}s, bad chunk sizes. Also 400 for any {@code Transfer-Encoding} but a single {@code chunked}
 * (the decoder passes, e.g., {@code gzip, chunked}). {@link PipelinedRequests} sends the answer after those of the
 * requests before it; nothing after a framing error is read or executed, so a smuggled second request never runs.
 * Passes good requests on.
 */
public final class MalformedRequestHandler extends ChannelInboundHandlerAdapter {

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            ApiException problem = problem(request);
            if (problem != null) {
                ReferenceCountUtil.release(msg);
                ctx.fireChannelRead(new FinalAnswer(problem));
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** @return what is wrong with the framing of {@code request}, or {@code null} */
    static ApiException problem(HttpRequest request) {
        DecoderResult result = request.decoderResult();
        if (result.isFailure()) {
            Throwable cause = result.cause();
            if (cause instanceof TooLongHttpLineException) {
                return new ApiException(HttpResponseStatus.REQUEST_URI_TOO_LONG, "URI_TOO_LONG",
                    "request line too long: " + cause.getMessage());
            }
            if (cause instanceof TooLongHttpHeaderException) {
                return new ApiException(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "REQUEST_HEADER_FIELDS_TOO_LARGE", "request headers too large: " + cause.getMessage());
            }
            return ApiException.badRequest("malformed request: "
                + Route.printable(cause == null ? "undecodable" : String.valueOf(cause.getMessage())));
        }
        List<String> encodings = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (!encodings.isEmpty() && (encodings.size() > 1 || !"chunked".equalsIgnoreCase(encodings.get(0).trim()))) {
            return ApiException.badRequest("unsupported Transfer-Encoding '"
                + Route.printable(String.join(", ", encodings)) + "': only 'chunked' is accepted");
        }
        return null;
    }
}
