package io.bladegc.benchmarks;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.Status;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc.SimpleServiceFutureStub;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop unary calls: call {@code i} is started at {@code start + i / rate} whatever the earlier ones did (late
 * ones at once, never skipped), each with its own deadline, on one thread of the caller's. Counts the calls that
 * ended OK and the others, with the first failure's status. Not thread-safe but for its counters.
 */
final class UnaryLoad {
    private final SimpleServiceFutureStub stub;
    private final double rate;
    private final Duration deadline;
    private final List<ListenableFuture<SimpleResponse>> calls = new ArrayList<>();
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();
    private long next = -1;
    private long sent;

    UnaryLoad(SimpleServiceFutureStub stub, double rate, Duration deadline) {
        this.stub = stub;
        this.rate = rate;
        this.deadline = deadline;
    }

    /** Starts the calls due in the next {@code length}, continuing the schedule of earlier runs. */
    void run(Duration length) {
        if (next < 0) {
            next = System.nanoTime();
        }
        long end = System.nanoTime() + length.toNanos();
        long spacing = (long) (1e9 / rate);
        while (next - end < 0) {
            LockSupport.parkNanos(next - System.nanoTime());
            if (System.nanoTime() - next < 0) {
                continue; // woke early
            }
            long startedMs = System.currentTimeMillis();
            ListenableFuture<SimpleResponse> call = stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                .unaryRpc(SimpleRequest.newBuilder().setRequestMessage("u" + sent).build());
            Futures.addCallback(call, new FutureCallback<>() {
                @Override
                public void onSuccess(SimpleResponse response) {
                    ok.incrementAndGet();
                }

                @Override
                public void onFailure(Throwable t) {
                    failed.incrementAndGet();
                    firstFailure.compareAndSet(null, Status.fromThrowable(t) + ", started at " + startedMs
                        + ", ended at " + System.currentTimeMillis() + " (wall-clock ms)");
                }
            }, MoreExecutors.directExecutor());
            calls.add(call);
            sent++;
            next += spacing;
        }
    }

    /** Waits for every call started to end (each has its deadline). */
    void awaitAll() throws InterruptedException {
        try {
            Futures.successfulAsList(calls).get(deadline.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("calls did not end within their deadline", e);
        }
    }

    long sent() {
        return sent;
    }

    long ok() {
        return ok.get();
    }

    long failed() {
        return failed.get();
    }

    /** @return the first failed call's status and wall-clock times, or {@code null} */
    String firstFailure() {
        return firstFailure.get();
    }
}
