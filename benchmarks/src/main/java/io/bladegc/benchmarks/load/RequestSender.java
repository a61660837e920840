package io.bladegc.benchmarks.load;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * Sends the open-loop requests with {@link HttpClient#sendAsync}, keeping at most {@code connections} in flight (so
 * at most that many HTTP/1.1 connections); the rest wait in a FIFO queue and are sent by whichever thread completes a
 * request. Each outcome goes to the {@link LoadTally}, timed from the request's intended send time.
 *
 * <p>Thread-safe: {@link #submit} is called by the scheduling thread, completions run on the client's executor.
 */
final class RequestSender {
    private final HttpClient client;
    private final HttpRequest request;
    private final Executor io;
    private final LoadTally tally;
    private final int connections;
    private final ArrayDeque<long[]> queue = new ArrayDeque<>(); // {intended nanos, measured ? 1 : 0}
    private int inFlight;

    /**
     * @param client      the client, HTTP/1.1
     * @param request     the request sent every time
     * @param io          the client's executor, which also sends the next queued request after a failed send
     * @param tally       where outcomes go
     * @param connections the most requests in flight at once, at least 1
     */
    RequestSender(HttpClient client, HttpRequest request, Executor io, LoadTally tally, int connections) {
        this.client = client;
        this.request = request;
        this.io = io;
        this.tally = tally;
        this.connections = connections;
    }

    /**
     * Sends now, or queues when every connection is busy.
     *
     * @param intended the request's intended send time, {@link System#nanoTime()}
     * @param measured whether it belongs to the measured window
     */
    void submit(long intended, boolean measured) {
        synchronized (this) {
            if (inFlight >= connections) {
                queue.addLast(new long[] {intended, measured ? 1 : 0});
                if (measured) {
                    tally.queued(queue.size());
                }
                return;
            }
            inFlight++;
        }
        send(intended, measured);
    }

    private void send(long intended, boolean measured) {
        try {
            client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .whenComplete((response, error) -> {
                    complete(intended, measured, response, error);
                    next();
                });
        } catch (RuntimeException e) {
            complete(intended, measured, null, e);
            io.execute(this::next);
        }
    }

    private void next() {
        long[] p;
        synchronized (this) {
            p = queue.pollFirst();
            if (p == null) {
                inFlight--;
                return;
            }
        }
        send(p[0], p[1] == 1);
    }

    private void complete(long intended, boolean measured, HttpResponse<?> response, Throwable error) {
        long latencyMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - intended);
        if (error != null) {
            Throwable cause = error;
            while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
                cause = cause.getCause();
            }
            tally.failed(measured, intended, latencyMicros, cause instanceof HttpTimeoutException);
        } else {
            tally.answered(measured, intended, latencyMicros, response.statusCode(), RetryAfter.of(response));
        }
    }
}
