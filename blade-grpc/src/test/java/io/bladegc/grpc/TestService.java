package io.bladegc.grpc;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service behind the tests' servers. A unary call's request says what the handler does: {@code hello} answers,
 * {@code block} waits for {@link #release}, {@code error} closes the call {@code INTERNAL}, {@code throw} throws. A
 * server-streaming call sends {@code first}, waits for {@link #release}, sends {@code second} and completes.
 */
final class TestService extends SimpleServiceGrpc.SimpleServiceImplBase {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    /** Handlers running now. */
    final AtomicInteger running = new AtomicInteger();
    /** Handlers started since the test began. */
    final AtomicInteger started = new AtomicInteger();

    static SimpleRequest request(String what) {
        return SimpleRequest.newBuilder().setRequestMessage(what).build();
    }

    static SimpleResponse response(String text) {
        return SimpleResponse.newBuilder().setResponseMessage(text).build();
    }

    @Override
    public void unaryRpc(SimpleRequest request, StreamObserver<SimpleResponse> out) {
        started.incrementAndGet();
        running.incrementAndGet();
        try {
            switch (request.getRequestMessage()) {
                case "block" -> {
                    entered.countDown();
                    awaitRelease();
                }
                case "error" -> {
                    out.onError(Status.INTERNAL.withDescription("the handler failed").asRuntimeException());
                    return;
                }
                case "throw" -> throw new IllegalStateException("the handler threw");
                default -> {
                }
            }
            out.onNext(response("hello"));
        } finally {
            running.decrementAndGet();
        }
        out.onCompleted();
    }

    @Override
    public void serverStreamingRpc(SimpleRequest request, StreamObserver<SimpleResponse> out) {
        started.incrementAndGet();
        out.onNext(response("first"));
        entered.countDown();
        awaitRelease();
        out.onNext(response("second"));
        out.onCompleted();
    }

    private void awaitRelease() {
        try {
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
