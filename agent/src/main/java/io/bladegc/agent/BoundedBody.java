package io.bladegc.agent;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A coordinator's answer read as UTF-8 text of at most {@link #LIMIT} bytes. A longer body fails the call, and the
 * download stops there (the subscription is cancelled, which closes the connection): whatever answers on the
 * coordinator's address, an endless or huge body costs the application at most this much heap. Answers of the real
 * coordinator are a few hundred bytes; its own request bodies are limited to 64 KiB.
 *
 * <p>One instance per response; the HTTP client calls it from one thread at a time.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<String> {
    /** The longest answer read, bytes. */
    static final int LIMIT = 64 * 1024;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final CompletableFuture<String> body = new CompletableFuture<>();
    private Flow.Subscription subscription;

    /** @return a handler reading each answer through a fresh {@link BoundedBody} */
    static HttpResponse.BodyHandler<String> handler() {
        return info -> new BoundedBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (body.isDone()) {
            return; // cancelled already; buffers in flight are dropped
        }
        for (ByteBuffer b : items) {
            if (bytes.size() + b.remaining() > LIMIT) {
                subscription.cancel();
                body.completeExceptionally(new CoordinatorException(CoordinatorException.Kind.BAD_ANSWER, -1,
                    "answer longer than " + LIMIT + " bytes; not read on"));
                return;
            }
            byte[] chunk = new byte[b.remaining()];
            b.get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }
    }

    @Override
    public void onError(Throwable t) {
        body.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        body.complete(bytes.toString(StandardCharsets.UTF_8));
    }

    @Override
    public CompletionStage<String> getBody() {
        return body;
    }
}
