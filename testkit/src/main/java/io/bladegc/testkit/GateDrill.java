package io.bladegc.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A short load on an HTTP server behind a Blade gate, while the drill closes, drains and opens the gate a few times:
 * client threads of their own send GETs in a loop with the JDK {@code HttpClient} (HTTP/1.1) and sort the answers
 * into served (200 with the expected body), shed ({@link #isShed}) and failures (anything else, an exception included). Each cycle waits for a request
 * served while the gate is open, closes it, waits for the drain, waits for a request shed while it is closed, and
 * opens it; nothing depends on timing but generous waits. Not thread-safe: one {@link #run} at a time.
 *
 * @param bodies       each URI to send to, with the body of its 200
 * @param clients      client threads
 * @param requests     answers to wait for at least, across the cycles
 * @param close        closes the gate
 * @param awaitDrained waits for the requests in flight, at most the given time; says whether they all left
 * @param open         opens the gate
 */
public record GateDrill(Map<URI, String> bodies, int clients, int requests, Runnable close, Predicate<Duration> awaitDrained,
                        Runnable open) {
    private static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * What the clients got.
     *
     * @param served   200 with the expected body
     * @param shed     503 with both retry headers
     * @param failures every other outcome, described
     */
    public record Tally(long served, long shed, List<String> failures) {
    }

    /**
     * Runs the clients through close-drain-open cycles, at least {@code cycles} and until the clients have had
     * {@link #requests} answers, then stops them; the gate is left open.
     *
     * @param cycles how many times at least the gate is closed
     * @return what the clients got
     * @throws TimeoutException when a wait takes more than a minute (a drain included)
     * @throws InterruptedException when interrupted
     */
    public Tally run(int cycles) throws TimeoutException, InterruptedException {
        AtomicLong served = new AtomicLong();
        AtomicLong shed = new AtomicLong();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<URI> targets = new ArrayList<>(bodies.keySet());
        Outstanding outstanding = new Outstanding(clients);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int first = c;
            Thread t = new Thread(() -> {
                for (int i = first; !stop.get(); i++) {
                    URI uri = targets.get(i % targets.size());
                    outstanding.sent(first, uri);
                    try {
                        HttpResponse<String> r =
                            http.send(HttpRequest.newBuilder(uri).timeout(WAIT).build(), BodyHandlers.ofString());
                        outstanding.answered(first);
                        if (r.statusCode() == 200 && r.body().equals(bodies.get(uri))) {
                            served.incrementAndGet();
                        } else if (isShed(r)) {
                            shed.incrementAndGet();
                        } else {
                            failures.add(uri + ": " + r.statusCode() + " " + r.headers().map() + " " + r.body());
                        }
                    } catch (IOException e) {
                        outstanding.answered(first);
                        failures.add(uri + ": " + e);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "gate-drill-client-" + c);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        try {
            for (int i = 0; i < cycles || served.get() + shed.get() < requests; i++) {
                long servedBefore = served.get();
                await(() -> served.get() > servedBefore, "a request served while the gate is open");
                close.run();
                long shedBefore = shed.get();
                if (!awaitDrained.test(WAIT)) {
                    throw new TimeoutException("the requests in flight did not leave within " + WAIT + "; the clients "
                        + "then: " + outstanding);
                }
                await(() -> shed.get() > shedBefore, "a request shed while the gate is closed");
                open.run();
            }
        } finally {
            open.run();
            stop.set(true);
            for (Thread t : threads) {
                t.join(WAIT.toMillis());
            }
        }
        return new Tally(served.get(), shed.get(), List.copyOf(failures));
    }

    /** What each client thread waits for, so that a drain that never ends says whether a client still waits. */
    private static final class Outstanding {
        private final AtomicReferenceArray<URI> uris;
        private final AtomicLongArray sentNanos;

        Outstanding(int clients) {
            uris = new AtomicReferenceArray<>(clients);
            sentNanos = new AtomicLongArray(clients);
        }

        void sent(int client, URI uri) {
            sentNanos.set(client, System.nanoTime());
            uris.set(client, uri);
        }

        void answered(int client) {
            uris.set(client, null);
        }

        /** @return e.g. {@code client 0 waits 61204 ms for http://..., client 1 answered} */
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            for (int c = 0; c < uris.length(); c++) {
                URI uri = uris.get(c);
                s.append(c == 0 ? "" : ", ").append("client ").append(c).append(uri == null ? " answered"
                    : " waits " + (System.nanoTime() - sentNanos.get(c)) / 1_000_000 + " ms for " + uri);
            }
            return s.toString();
        }
    }

    /**
     * @param response an answer
     * @return whether it is a shed request's: {@code 503} with a whole-seconds {@code Retry-After}, a
     *     {@code Blade-Retry-After-Ms} and {@code Cache-Control: no-store}
     */
    public static boolean isShed(HttpResponse<?> response) {
        return response.statusCode() == 503
            && response.headers().firstValue("retry-after").orElse("").matches("[0-9]+")
            && response.headers().firstValue("blade-retry-after-ms").orElse("").matches("[0-9]+")
            && response.headers().firstValue("cache-control").orElse("").equals("no-store");
    }

    /**
     * Waits for a closed gate's drain on a thread of its own, as the node's gc thread does: not on the common pool,
     * which may be the one thread that completes the client's responses (JDK 25's {@code HttpClient}, 2 cores).
     *
     * @param awaitDrained waits for the requests in flight, at most the given time; says whether they all left
     * @param timeout      how long to wait
     * @return completed with {@link System#nanoTime()} when they all left, or {@code -1} when the wait timed out
     */
    public static CompletableFuture<Long> drainInBackground(Predicate<Duration> awaitDrained, Duration timeout) {
        CompletableFuture<Long> drained = new CompletableFuture<>();
        Thread drainer = new Thread(() -> drained.complete(awaitDrained.test(timeout) ? System.nanoTime() : -1),
            "gate-drill-drain");
        drainer.setDaemon(true);
        drainer.start();
        return drained;
    }

    private static void await(BooleanSupplier condition, String what) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("no " + what + " within " + WAIT);
            }
            Thread.sleep(5);
        }
    }
}
