package io.bladegc.coordinator;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A well-behaved client that keeps calling the coordinator (heartbeat, health) on its own thread while a test
 * attacks it; records every failure and the slowest answer. "Other clients keep being served throughout."
 */
final class Canary implements AutoCloseable {
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2)).build();
    private final URI base;
    private final Thread thread;
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicInteger served = new AtomicInteger();
    private final AtomicLong slowestMillis = new AtomicLong();
    private volatile boolean running = true;

    Canary(URI base) throws Exception {
        this.base = base;
        expect(200, post("/v1/nodes/canary/join"));
        thread = new Thread(this::run, "canary");
        thread.setDaemon(true);
        thread.start();
    }

    private HttpResponse<String> post(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(5))
            .header(TestKeys.HEADER, TestKeys.forPath(path)).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(5)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private void expect(int status, HttpResponse<String> r) {
        if (r.statusCode() != status) {
            failures.add(r.request().uri() + " -> " + r.statusCode() + " " + r.body());
        }
    }

    private void run() {
        while (running) {
            long start = System.nanoTime();
            try {
                expect(200, post("/v1/nodes/canary/heartbeat"));
                expect(200, get("/health"));
                served.addAndGet(2);
            } catch (Exception e) {
                if (running) {
                    failures.add(e.toString());
                }
            }
            slowestMillis.accumulateAndGet((System.nanoTime() - start) / 1_000_000, Math::max);
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    int served() {
        return served.get();
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    long slowestMillis() {
        return slowestMillis.get();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
