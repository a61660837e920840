package io.bladegc.benchmarks;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Requests an integration test keeps sending to backends, on a daemon thread, until {@link #stop()} or two minutes
 * have passed. Answers are ignored: 503s while a node drains are expected. Thread-safe.
 */
final class Traffic implements AutoCloseable {
    private static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(2);
    private final Thread thread;
    private volatile boolean stop;

    private Traffic(String name, Runnable step) {
        long end = System.nanoTime() + MAX_NANOS;
        thread = new Thread(() -> {
            while (!stop && System.nanoTime() < end) {
                step.run();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * One request to each of {@code uris} every {@code everyMillis} ms, in the same order each time, so that nodes
     * given the same work allocate in step.
     */
    static Traffic lockstep(HttpClient http, List<URI> uris, long everyMillis) {
        return new Traffic("traffic " + uris, () -> {
            for (URI uri : uris) {
                http.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding());
            }
            pause(everyMillis);
        });
    }

    /** One slow request in flight at a time, the next as soon as one ends. */
    static Traffic slow(HttpClient http, URI uri) {
        return new Traffic("slow " + uri, () -> {
            CompletableFuture<?> r = http.sendAsync(HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.discarding());
            try {
                r.get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                // refused by the gate or failed: send the next
            }
            pause(10);
        });
    }

    /** Stops sending; requests already sent go on. */
    void stop() {
        stop = true;
    }

    @Override
    public void close() {
        stop();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
