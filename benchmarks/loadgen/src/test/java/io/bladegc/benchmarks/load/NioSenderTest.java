package io.bladegc.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link NioSender} against a JDK HTTP server on loopback, driven as {@link OpenLoopLoad}'s loop drives it. */
class NioSenderTest {
    private HttpServer server;

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/ok", x -> {
            byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
            x.sendResponseHeaders(200, body.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(body);
            }
        });
        server.createContext("/chunked", x -> {
            x.sendResponseHeaders(200, 0); // length 0: chunked
            try (OutputStream out = x.getResponseBody()) {
                out.write(new byte[5000]);
            }
        });
        server.createContext("/shed", x -> {
            x.getResponseHeaders().add("Retry-After", "1");
            x.sendResponseHeaders(503, -1);
            x.close();
        });
        server.createContext("/slow", x -> {
            try {
                Thread.sleep(1_500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    private byte[] request(String path) {
        return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** Sends {@code n} requests at {@code rate} and waits for their outcomes. */
    /** The queue length the last {@link #run}'s sender ended with. */
    private int lastQueueCapacity;

    private LoadResult run(String path, int n, double rate, int connections, Duration timeout) throws IOException {
        LoadTally tally = new LoadTally();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
        tally.window(start, (int) Math.ceil(n / rate) + 1);
        tally.measureStarted(start);
        Arrivals arrivals = new Arrivals(Arrivals.Kind.CONSTANT, rate, start, 1);
        try (NioSender sender = new NioSender(server.getAddress(), request(path), connections, timeout, tally)) {
            for (int i = 0; i < n; i++) {
                long intended = arrivals.next();
                sender.poll(intended);
                tally.sent(true, System.nanoTime() - intended);
                sender.submit(intended, true);
            }
            tally.measureEnded(System.nanoTime(), (long) (1e9 / rate));
            long giveUp = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(5);
            while (!sender.idle() && System.nanoTime() < giveUp) {
                sender.poll(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10));
            }
            assertThat(sender.idle()).as("%s", sender).isTrue();
            lastQueueCapacity = sender.queueCapacity();
        }
        return tally.result(rate);
    }

    @Test
    void everyRequestIsAnsweredOverKeepAliveConnections() throws IOException {
        LoadResult r = run("/ok", 2_000, 2_000, 4, Duration.ofSeconds(5));
        assertThat(r.ok()).as("%s", r).isEqualTo(2_000);
        assertThat(r.sent()).isEqualTo(2_000);
        assertThat(r.ioErrors() + r.timeouts() + r.unfinished() + r.otherStatus()).isZero();
        assertThat(run("/chunked", 200, 1_000, 2, Duration.ofSeconds(5)).ok()).isEqualTo(200);
    }

    @Test
    void shedRequestsAreCountedWithTheirRetryAfter() throws IOException {
        LoadResult r = run("/shed", 100, 1_000, 2, Duration.ofSeconds(5));
        assertThat(r.shed()).isEqualTo(100);
        assertThat(r.retryAfterMissing() + r.retryAfterInvalid()).isZero();
    }

    @Test
    void aRequestWithoutAnAnswerTimesOutAndWaitersAreTimedFromTheirIntendedTime() throws IOException {
        LoadResult r = run("/slow", 4, 100, 1, Duration.ofMillis(300));
        assertThat(r.timeouts()).isEqualTo(4);
        // one connection: each request waited for the ones before it to time out, and that counts
        assertThat(r.allLatency().getMaxValue()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toMicros(4 * 300 - 40));
    }

    @Test
    void aServerThatIsNotThereIsAnIoErrorPerRequest() throws IOException {
        int port = server.getAddress().getPort();
        server.stop(0);
        LoadTally tally = new LoadTally();
        long now = System.nanoTime();
        tally.window(now, 1);
        tally.measureStarted(now);
        try (NioSender sender = new NioSender(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
            request("/ok"), 2, Duration.ofSeconds(2), tally)) {
            for (int i = 0; i < 5; i++) {
                tally.sent(true, 0);
                sender.submit(System.nanoTime(), true);
            }
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!sender.idle() && System.nanoTime() < giveUp) {
                sender.poll(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        assertThat(tally.result(1).ioErrors()).isEqualTo(5);
    }

    /** @return the bytes of the arrays a sender's queue allocated to double from 1,024 to {@code capacity} */
    private static long queueGrowth(int capacity) {
        long bytes = 0;
        for (long length = 2_048; length <= capacity; length *= 2) {
            bytes += 16 + 8 * length;
        }
        return bytes;
    }

    @Test
    void theHotPathAllocatesNothingPerRequest() throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        run("/ok", 2_000, 4_000, 4, Duration.ofSeconds(5)); // warm up: JIT, connections, queue size
        long before = threads.getThreadAllocatedBytes(id);
        LoadResult small = run("/ok", 1_000, 4_000, 4, Duration.ofSeconds(5));
        long forSmall = threads.getThreadAllocatedBytes(id) - before - queueGrowth(lastQueueCapacity);
        before = threads.getThreadAllocatedBytes(id);
        LoadResult large = run("/ok", 9_000, 4_000, 4, Duration.ofSeconds(5));
        long forLarge = threads.getThreadAllocatedBytes(id) - before - queueGrowth(lastQueueCapacity);
        assertThat(small.ok() + large.ok()).isEqualTo(10_000);
        // a run's fixed cost (tally, histograms, buffers, selector) is the same for both; what grows with the count
        // is per request. Not counted: the queue's doublings, which depend on how far the sender fell behind (on a
        // loaded machine once 8,192 requests deep: 115 KB, which read as 14 B per request)
        double perRequest = (forLarge - forSmall) / 8_000.0;
        assertThat(perRequest).as("bytes allocated per request (runs of 1,000: %d B, 9,000: %d B, the queue's "
            + "growth left out)", forSmall, forLarge).isLessThan(8.0);
    }
}
