package io.bladegc.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.bladegc.commandline.ToolRun;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpenLoopLoadTest {
    private HttpServer server;
    private ExecutorService handlers;
    private final AtomicBoolean stallArmed = new AtomicBoolean();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
        server.createContext("/ok", respond(200, null));
        server.createContext("/shed", respond(503, "1"));
        server.createContext("/shed-no-retry-after", respond(503, null));
        server.createContext("/shed-bad-retry-after", respond(503, "soon"));
        server.createContext("/shed-negative-retry-after", respond(503, "-1"));
        server.createContext("/teapot", respond(418, null));
        server.createContext("/hang", exchange -> {
            sleep(3_000);
            send(exchange, 200, null);
        });
        server.createContext("/stall-once", exchange -> {
            if (stallArmed.compareAndSet(true, false)) {
                sleep(500);
            }
            send(exchange, 200, null);
        });
        // Handlers run on one thread: a stall holds up every request behind it, like a stop-the-world pause.
        handlers = Executors.newSingleThreadExecutor();
        server.setExecutor(handlers);
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
        handlers.shutdownNow();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    private static OpenLoopLoad.Builder quick(URI uri) {
        return OpenLoopLoad.builder(uri).rate(200).warmup(Duration.ofMillis(100)).duration(Duration.ofMillis(500))
            .timeout(Duration.ofSeconds(5));
    }

    @Test
    void countsSuccessfulResponsesAndRecordsTheirLatency() {
        LoadResult r = quick(uri("/ok")).build().run();

        assertThat(r.sent()).isBetween(95L, 105L);
        assertThat(r.warmupSent()).isBetween(15L, 25L);
        assertThat(r.ok()).isEqualTo(r.sent());
        assertThat(r.okLatency().getTotalCount()).isEqualTo(r.sent());
        assertThat(r.shed() + r.otherStatus() + r.ioErrors() + r.timeouts() + r.unfinished()).isZero();
        assertThat(r.achievedRate()).isBetween(150.0, 250.0);
        assertThat(r.throughput()).isBetween(150.0, 250.0);
        assertThat(r.okPercentileMicros(50)).isPositive();
    }

    @Test
    void counts503AndChecksRetryAfter() {
        LoadResult valid = quick(uri("/shed")).build().run();
        assertThat(valid.shed()).isEqualTo(valid.sent()).isPositive();
        assertThat(valid.retryAfterMissing() + valid.retryAfterInvalid()).isZero();
        assertThat(valid.ok()).isZero();
        assertThat(valid.okLatency().getTotalCount()).isZero();
        assertThat(valid.allLatency().getTotalCount()).isEqualTo(valid.sent());
        assertThat(valid.shedPercent()).isEqualTo(100.0);

        LoadResult missing = quick(uri("/shed-no-retry-after")).build().run();
        assertThat(missing.shed()).isEqualTo(missing.sent());
        assertThat(missing.retryAfterMissing()).isEqualTo(missing.sent());
        assertThat(missing.retryAfterInvalid()).isZero();

        LoadResult invalid = quick(uri("/shed-bad-retry-after")).build().run();
        assertThat(invalid.retryAfterInvalid()).isEqualTo(invalid.sent()).isPositive();
        assertThat(invalid.retryAfterMissing()).isZero();

        LoadResult negative = quick(uri("/shed-negative-retry-after")).build().run();
        assertThat(negative.retryAfterInvalid()).isEqualTo(negative.sent()).isPositive();
    }

    @Test
    void countsOtherStatuses() {
        LoadResult r = quick(uri("/teapot")).build().run();

        assertThat(r.otherStatus()).isEqualTo(r.sent()).isPositive();
        assertThat(r.otherStatuses()).isEqualTo(Map.of(418, r.sent()));
        assertThat(r.ok() + r.shed()).isZero();
    }

    @Test
    void countsTimeouts() {
        // Few requests: each /hang occupies the single handler thread for 3 s.
        LoadResult r = OpenLoopLoad.builder(uri("/hang")).rate(20).warmup(Duration.ZERO)
            .duration(Duration.ofMillis(250)).timeout(Duration.ofMillis(300)).build().run();

        assertThat(r.sent()).isEqualTo(5);
        assertThat(r.timeouts()).isEqualTo(r.sent());
        assertThat(r.ok() + r.ioErrors() + r.unfinished()).isZero();
        // the histogram keeps 3 significant digits: 300 ms is stored in a bucket that starts a little below it
        assertThat(r.allLatency().getMinValue())
            .isGreaterThanOrEqualTo(r.allLatency().lowestEquivalentValue(300_000));
    }

    @Test
    void countsConnectionErrors() throws IOException {
        int closedPort = FreePorts.one();
        LoadResult r = quick(URI.create("http://127.0.0.1:" + closedPort + "/")).build().run();

        assertThat(r.ioErrors()).isEqualTo(r.sent()).isPositive();
        assertThat(r.ok() + r.timeouts() + r.unfinished()).isZero();
    }

    @Test
    void latencyIncludesQueueingBehindAStall() {
        // 100/s: ten ms apart. The server stalls 500 ms once, early in the measured window. A closed-loop client
        // would see one slow request; an open-loop one sees every request that was due during the stall.
        LoadResult r = OpenLoopLoad.builder(uri("/stall-once")).rate(100).warmup(Duration.ofMillis(300))
            .duration(Duration.ofMillis(1500)).timeout(Duration.ofSeconds(5))
            .onMeasureStart(() -> stallArmed.set(true))
            .build().run();

        Histogram h = r.okLatency();
        assertThat(r.ok()).isEqualTo(r.sent());
        assertThat(h.getMaxValue()).isGreaterThanOrEqualTo(500_000);
        long above250ms = h.getTotalCount() - h.getCountBetweenValues(0, 250_000);
        long above100ms = h.getTotalCount() - h.getCountBetweenValues(0, 100_000);
        assertThat(above250ms).as("requests due in the first half of the stall").isGreaterThanOrEqualTo(15);
        assertThat(above100ms).as("requests due during the stall").isGreaterThanOrEqualTo(30);
        assertThat(r.timelineMaxMicros()).hasSize(2);
        assertThat(r.timelineMaxMicros()[0]).as("the stall is in the first second").isGreaterThanOrEqualTo(500_000);
    }

    @Test
    void queuesRequestsBeyondTheConnectionLimitAndStillTimesThemFromTheirIntendedSendTime() {
        LoadResult r = OpenLoopLoad.builder(uri("/stall-once")).rate(100).warmup(Duration.ofMillis(300))
            .duration(Duration.ofMillis(1500)).timeout(Duration.ofSeconds(5)).connections(2)
            .onMeasureStart(() -> stallArmed.set(true))
            .build().run();

        assertThat(r.ok()).isEqualTo(r.sent());
        assertThat(r.unfinished()).isZero();
        assertThat(r.maxQueued()).as("requests due during the stall wait for a connection").isGreaterThanOrEqualTo(20);
        Histogram h = r.okLatency();
        assertThat(h.getMaxValue()).isGreaterThanOrEqualTo(500_000);
        assertThat(h.getTotalCount() - h.getCountBetweenValues(0, 250_000)).isGreaterThanOrEqualTo(15);
    }

    @Test
    void saveAndLoadRoundTrip(@TempDir Path dir) throws IOException {
        LoadResult r = quick(uri("/ok")).build().run();
        Path file = dir.resolve("r.properties");
        r.save(file);
        LoadResult back = LoadResult.load(file);

        assertThat(back.rows()).isEqualTo(r.rows());
        assertThat(back.okLatency()).isEqualTo(r.okLatency());
        assertThat(back.timeline()).isEqualTo(r.timeline()).contains("max 2xx");
        assertThat(r.toString()).contains("p99.9 (ms)", "shed 503 (%)", "achieved rate (/s)");
    }

    @Test
    void tableLaysColumnsSideBySide() {
        String t = LoadResult.table(Map.of("A", Map.of("p50 (ms)", "1.00")));
        assertThat(t.lines()).hasSize(3);
        assertThat(t).contains("p50 (ms) | 1.00");
    }

    @Test
    void poissonArrivalsKeepTheRateOnAverage() {
        LoadResult r = OpenLoopLoad.builder(uri("/ok")).rate(400).poisson(true).warmup(Duration.ofMillis(100))
            .duration(Duration.ofSeconds(2)).timeout(Duration.ofSeconds(5)).build().run();
        assertThat(r.sent()).as("about 800 requests in 2 s at 400/s (Poisson: sd about 28)").isBetween(680L, 920L);
        assertThat(r.ok()).isEqualTo(r.sent());
    }

    @Test
    void theIntervalLogHoldsEveryMeasuredAnswerSecondBySecond(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path log = dir.resolve("latency.hlog");
        LoadResult r = OpenLoopLoad.builder(uri("/ok")).rate(500).warmup(Duration.ofMillis(100))
            .duration(Duration.ofMillis(4_500)).timeout(Duration.ofSeconds(5)).intervalLog(log).build().run();
        org.HdrHistogram.HistogramLogReader reader = new org.HdrHistogram.HistogramLogReader(log.toFile());
        java.util.List<org.HdrHistogram.EncodableHistogram> intervals = new java.util.ArrayList<>();
        for (org.HdrHistogram.EncodableHistogram h = reader.nextIntervalHistogram(); h != null;
             h = reader.nextIntervalHistogram()) {
            intervals.add(h);
        }
        // the sender's thread writes an interval once a second has passed when it runs: at load average 20 here a
        // 2.5 s window once came out as a single interval (the thread starved that long)
        assertThat(intervals).as("about one per second of a 4.5 s window").hasSizeBetween(2, 5);
        long total = 0;
        for (int i = 0; i < intervals.size(); i++) {
            org.HdrHistogram.EncodableHistogram h = intervals.get(i);
            total += ((org.HdrHistogram.Histogram) h).getTotalCount();
            if (i > 0) { // IntervalLog gives both the same millisecond; the log stores seconds with three decimals,
                // start and length apart, and the reader turns them back through doubles: 1 ms either way (a CI run
                // read 1795958841210 after 1795958841209)
                assertThat(h.getStartTimeStamp()).as("interval %d begins where the one before ended", i)
                    .isCloseTo(intervals.get(i - 1).getEndTimeStamp(), org.assertj.core.api.Assertions.within(1L));
            }
            if (i < intervals.size() - 1) { // written once a second has passed (later when the sender's thread is
                // starved: on a loaded machine an interval of 1,241 ms), the last one with what is left
                assertThat(h.getEndTimeStamp() - h.getStartTimeStamp()).as("interval %d, ms", i)
                    .isGreaterThanOrEqualTo(1_000);
            }
        }
        assertThat(total).as("2xx in the log against the run's count").isEqualTo(r.ok()).isPositive();
    }

    @Test
    void theCommandLineNamesWhatIsWrong() {
        assertThatThrownBy(() -> LoadCommandLine.parse("http://127.0.0.1:1/", "--arrivals", "bursty"))
            .hasMessage("Invalid value for option '--arrivals': 'bursty' is not constant or poisson");
        assertThatThrownBy(() -> LoadCommandLine.parse("--rate", "10"))
            .hasMessage("Missing required parameter: 'URL'");
        assertThatThrownBy(() -> LoadCommandLine.parse("https://example.org/"))
            .hasMessageContaining("url must be http://");
        assertThatThrownBy(() -> LoadCommandLine.parse("--duration", "soon", "http://127.0.0.1:1/"))
            .hasMessage("Invalid value for option '--duration': 'soon': expected a duration such as 20ms or 1s");
        LoadCommandLine c = LoadCommandLine.parse("--arrivals", "poisson", "http://127.0.0.1:1/x",
            "--duration=2s", "--warmup", "500ms", "--save", "r.properties");
        assertThat(c.description()).isEqualTo("open-loop load: GET http://127.0.0.1:1/x at 1000/s (Poisson),"
            + " warm-up 500 ms, measuring 2 s");
        assertThat(c.save()).isEqualTo(java.nio.file.Path.of("r.properties"));
    }

    @Test
    void theCommandLinesHelpAndUsageErrorsAreTheSharedOnes() {
        ToolRun.of(new LoadCommandLine.Flags(), "--help").isHelpOf("OpenLoopLoad", "URL", "--rate=PER_SECOND",
            "(default 1000)", "--arrivals=constant|poisson", "--interval-log=FILE", "--save=FILE");
        ToolRun.of(new LoadCommandLine.Flags(), "http://127.0.0.1:1/", "--rate", "fast", "--nope")
            .isUsageError("OpenLoopLoad", "Invalid value for option '--rate': 'fast' is not a double",
                "Unknown option: '--nope'");
    }

    @Test
    void rejectsBadSettings() {
        assertThatThrownBy(() -> OpenLoopLoad.builder(uri("/ok")).rate(0).build())
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OpenLoopLoad.builder(uri("/ok")).duration(Duration.ZERO).build())
            .isInstanceOf(IllegalArgumentException.class);
        DurationOption durations = new DurationOption();
        assertThat(durations.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(durations.convert("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(durations.convert("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> durations.convert("30")).hasMessage("'30': a duration needs a unit (ms, s or m),"
            + " e.g. 30ms or 30s");
    }

    private static HttpHandler respond(int status, String retryAfter) {
        return exchange -> send(exchange, status, retryAfter);
    }

    private static void send(HttpExchange exchange, int status, String retryAfter) throws IOException {
        exchange.getRequestBody().readAllBytes();
        if (retryAfter != null) {
            exchange.getResponseHeaders().add("Retry-After", retryAfter);
        }
        byte[] body = "x\n".getBytes();
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
