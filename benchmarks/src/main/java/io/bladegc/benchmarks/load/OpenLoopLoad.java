package io.bladegc.benchmarks.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;

/**
 * Open-loop, constant-rate HTTP load: request {@code i} is due at {@code start + i / rate}, whatever happened to the
 * earlier ones, and its latency is measured from that <em>intended</em> send time to the end of the response. A
 * server stall therefore shows in the latency of every request that was due during the stall, not just the one
 * being served (no coordinated omission; see Tene, "How NOT to measure latency", and paper 001 section 4.5).
 *
 * <p>One scheduling thread parks until each intended time and hands the request to {@link HttpClient#sendAsync}
 * (HTTP/1.1, on an executor of its own); it never waits for a response. When it falls behind (a pause of this JVM,
 * a slow {@code sendAsync}) it sends at once and still times from the intended time; the largest such lag is
 * reported so a slow client is visible. Like a load balancer (or wrk2), the client keeps at most
 * {@link Builder#connections(int) a fixed number} of requests, hence HTTP/1.1 connections, in flight; a request due
 * while all are busy waits in a client-side queue and is sent when one frees up, its latency still counted from its
 * intended time. (Unbounded, a server stall would make the client open one connection per request due during the
 * stall, and the server would hold buffers for all of them.) Requests due during the warm-up are sent and awaited but not recorded.
 * Every request sent in the measured window ends up in exactly one count: 2xx, 503, other status, I/O error,
 * timeout, or unfinished (still outstanding when the run gave up waiting).
 *
 * <p>Usage:
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) io.bladegc.benchmarks.load.OpenLoopLoad \
 *     --url http://127.0.0.1:8080/work --rate 1000 --duration 30s --warmup 10s [--timeout 10s] [--save result.properties]
 * </pre>
 */
public final class OpenLoopLoad {
    /** Highest latency the histograms track; larger values are clamped to it (and counted). */
    public static final long MAX_LATENCY_MICROS = TimeUnit.SECONDS.toMicros(60);
    private static final Pattern DELAY_SECONDS = Pattern.compile("[0-9]+");

    private final URI url;
    private final String method;
    private final double rate;
    private final Duration duration;
    private final Duration warmup;
    private final Duration timeout;
    private final int ioThreads;
    private final int connections;
    private final Runnable onMeasureStart;

    private OpenLoopLoad(Builder b) {
        this.url = Objects.requireNonNull(b.url, "url");
        this.method = b.method;
        this.rate = b.rate;
        this.duration = b.duration;
        this.warmup = b.warmup;
        this.timeout = b.timeout;
        this.ioThreads = b.ioThreads;
        this.connections = b.connections;
        this.onMeasureStart = b.onMeasureStart;
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate must be positive: " + rate);
        }
        if (duration.isNegative() || duration.isZero() || warmup.isNegative()) {
            throw new IllegalArgumentException("duration must be positive and warmup not negative");
        }
        if (timeout.isNegative() || timeout.isZero() || ioThreads < 1 || connections < 1) {
            throw new IllegalArgumentException("timeout must be positive, ioThreads and connections at least 1");
        }
    }

    /** @return a builder for load against {@code url} (defaults: GET, 1000/s, 30 s after 10 s warm-up, 10 s timeout) */
    public static Builder builder(URI url) {
        return new Builder(url);
    }

    /**
     * Runs the load and waits for every response, for as long as answers keep coming (it gives up when none came
     * for the per-request timeout plus 5 s; what is left is counted as unfinished).
     *
     * @return the measured window's counts and latencies
     */
    public LoadResult run() {
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService io = Executors.newFixedThreadPool(ioThreads, r -> {
            Thread t = new Thread(r, "open-loop-io-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(io)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
        HttpRequest request = HttpRequest.newBuilder(url)
            .timeout(timeout)
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
        Tally tally = new Tally();
        try {
            schedule(new Sender(client, request, io, tally), tally);
            // Requests still queued client-side are sent as connections free up: wait as long as answers keep coming.
            if (!tally.awaitAllDone(timeout.plusSeconds(5))) {
                tally.giveUp();
            }
        } finally {
            io.shutdownNow();
        }
        return tally.result(rate);
    }

    private void schedule(Sender sender, Tally tally) {
        long periodNanos = Math.max(1, Math.round(1e9 / rate));
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long measureFrom = start + warmup.toNanos();
        long end = measureFrom + duration.toNanos();
        tally.window(measureFrom, (int) ((duration.toNanos() + 999_999_999L) / 1_000_000_000L));
        boolean measuring = false;
        for (long i = 0; ; i++) {
            // i * period, exact for any rate without accumulating rounding error
            long intended = start + (long) (i * (1e9 / rate));
            if (intended >= end) {
                break;
            }
            long now;
            while ((now = System.nanoTime()) < intended) {
                LockSupport.parkNanos(intended - now);
            }
            boolean measured = intended >= measureFrom;
            if (measured && !measuring) {
                measuring = true;
                tally.measureStarted(now);
                if (onMeasureStart != null) {
                    Thread t = new Thread(onMeasureStart, "open-loop-measure-start");
                    t.setDaemon(true);
                    t.start();
                }
            }
            tally.sent(measured, now - intended);
            sender.submit(intended, measured);
        }
        tally.measureEnded(System.nanoTime(), periodNanos);
    }

    private static void complete(Tally tally, long intended, boolean measured, HttpResponse<?> response,
                                 Throwable error) {
        long latencyMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - intended);
        if (error != null) {
            Throwable cause = error;
            while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
                cause = cause.getCause();
            }
            tally.failed(measured, intended, latencyMicros, cause instanceof HttpTimeoutException);
        } else {
            int status = response.statusCode();
            RetryAfter retryAfter = RetryAfter.NOT_APPLICABLE;
            if (status == 503) {
                List<String> values = response.headers().allValues("Retry-After");
                retryAfter = values.isEmpty() ? RetryAfter.MISSING
                    : values.size() == 1 && DELAY_SECONDS.matcher(values.get(0).trim()).matches()
                    ? RetryAfter.VALID : RetryAfter.INVALID;
            }
            tally.answered(measured, intended, latencyMicros, status, retryAfter);
        }
    }

    /**
     * Keeps at most {@link #connections} requests in flight; the rest wait in a FIFO queue, sent by whichever thread
     * completes a request. Thread-safe.
     */
    private final class Sender {
        private final HttpClient client;
        private final HttpRequest request;
        private final ExecutorService io;
        private final Tally tally;
        private final ArrayDeque<long[]> queue = new ArrayDeque<>();
        private int inFlight;

        Sender(HttpClient client, HttpRequest request, ExecutorService io, Tally tally) {
            this.client = client;
            this.request = request;
            this.io = io;
            this.tally = tally;
        }

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
                        complete(tally, intended, measured, response, error);
                        next();
                    });
            } catch (RuntimeException e) {
                complete(tally, intended, measured, null, e);
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
    }

    /** How a 503's {@code Retry-After} looked. */
    enum RetryAfter { NOT_APPLICABLE, VALID, MISSING, INVALID }

    /** Settings for {@link OpenLoopLoad}. Not thread-safe. */
    public static final class Builder {
        private final URI url;
        private String method = "GET";
        private double rate = 1000;
        private Duration duration = Duration.ofSeconds(30);
        private Duration warmup = Duration.ofSeconds(10);
        private Duration timeout = Duration.ofSeconds(10);
        private int ioThreads = 2;
        private int connections = 64;
        private Runnable onMeasureStart;

        private Builder(URI url) {
            this.url = url;
        }

        /** @param method HTTP method, sent without a body (default GET) */
        public Builder method(String method) {
            this.method = Objects.requireNonNull(method);
            return this;
        }

        /** @param perSecond requests per second, constant */
        public Builder rate(double perSecond) {
            this.rate = perSecond;
            return this;
        }

        /** @param duration the measured window */
        public Builder duration(Duration duration) {
            this.duration = Objects.requireNonNull(duration);
            return this;
        }

        /** @param warmup load before the measured window, not recorded */
        public Builder warmup(Duration warmup) {
            this.warmup = Objects.requireNonNull(warmup);
            return this;
        }

        /** @param timeout per request: connect, and send to response headers */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout);
            return this;
        }

        /** @param threads threads of the HTTP client's own executor */
        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        /**
         * @param max the most requests (HTTP/1.1 connections) in flight at once; more wait in a client-side queue
         *            (default 64)
         */
        public Builder connections(int max) {
            this.connections = max;
            return this;
        }

        /**
         * @param action run once, on a thread of its own, when the first measured request is due (e.g. to reset
         *               server-side counters so they cover the measured window only); may be {@code null}
         */
        public Builder onMeasureStart(Runnable action) {
            this.onMeasureStart = action;
            return this;
        }

        /** @throws IllegalArgumentException when a value is out of range */
        public OpenLoopLoad build() {
            return new OpenLoopLoad(this);
        }
    }

    /** Command line: see the class comment. Prints the result table; exits 1 when requests were left unfinished. */
    public static void main(String[] args) throws IOException {
        OpenLoopLoad load;
        Path save = null;
        URI url = null;
        double rate = 1000;
        Duration duration = Duration.ofSeconds(30);
        Duration warmup = Duration.ofSeconds(10);
        Duration timeout = Duration.ofSeconds(10);
        int ioThreads = 2;
        int connections = 64;
        String method = "GET";
        try {
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + args[i]);
                }
                String v = args[i + 1];
                switch (args[i]) {
                    case "--url": url = URI.create(v); break;
                    case "--rate": rate = Double.parseDouble(v); break;
                    case "--duration": duration = parseDuration(v); break;
                    case "--warmup": warmup = parseDuration(v); break;
                    case "--timeout": timeout = parseDuration(v); break;
                    case "--io-threads": ioThreads = Integer.parseInt(v); break;
                    case "--connections": connections = Integer.parseInt(v); break;
                    case "--method": method = v; break;
                    case "--save": save = Path.of(v); break;
                    default: throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
            if (url == null) {
                throw new IllegalArgumentException("--url is required");
            }
            load = builder(url).rate(rate).duration(duration).warmup(warmup).timeout(timeout).ioThreads(ioThreads)
                .connections(connections).method(method).build();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: OpenLoopLoad --url URL [--rate PER_SECOND] [--duration 30s] [--warmup 10s]"
                + " [--timeout 10s] [--connections 64] [--io-threads 2] [--method GET] [--save FILE]");
            System.exit(2);
            return;
        }
        System.err.printf("open-loop load: %s %s at %.0f/s, warm-up %s, measuring %s%n", method, url, rate,
            human(warmup), human(duration));
        LoadResult result = load.run();
        System.out.println(result);
        if (save != null) {
            result.save(save);
        }
        System.exit(result.unfinished() > 0 ? 1 : 0);
    }

    /**
     * Parses {@code 30s}, {@code 500ms}, {@code 2m}, a bare number of seconds, or ISO-8601 ({@code PT30S}).
     *
     * @param s the text
     * @return the duration
     */
    public static Duration parseDuration(String s) {
        String t = s.trim();
        try {
            if (t.startsWith("P") || t.startsWith("p")) {
                return Duration.parse(t);
            }
            if (t.endsWith("ms")) {
                return Duration.ofNanos(Math.round(Double.parseDouble(t.substring(0, t.length() - 2)) * 1e6));
            }
            if (t.endsWith("m")) {
                return Duration.ofNanos(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 60e9));
            }
            if (t.endsWith("s")) {
                t = t.substring(0, t.length() - 1);
            }
            return Duration.ofNanos(Math.round(Double.parseDouble(t) * 1e9));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a duration: " + s + " (use e.g. 30s, 500ms, 2m)");
        }
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** Counts and histograms of one run. Thread-safe (one lock; a few thousand updates a second). */
    private static final class Tally {
        private final Histogram ok = new Histogram(MAX_LATENCY_MICROS, 3);
        private final Histogram all = new Histogram(MAX_LATENCY_MICROS, 3);
        private final LoadResult.Counts counts = new LoadResult.Counts();
        private long outstanding;
        private boolean measureStarted;
        private long measureStartNanos;
        private long measureEndNanos;
        private boolean gaveUp;
        private long lastDoneNanos = System.nanoTime();
        private long lastMeasuredDoneNanos;
        private long measureFrom;

        synchronized void measureStarted(long now) {
            measureStarted = true;
            measureStartNanos = now;
            measureEndNanos = now;
        }

        synchronized void measureEnded(long now, long periodNanos) {
            lastDoneNanos = Math.max(lastDoneNanos, now);
            // The window during which measured sends happened, counting the last request's own period.
            if (measureStarted) {
                measureEndNanos = now + periodNanos;
            }
        }

        synchronized void sent(boolean measured, long lagNanos) {
            outstanding++;
            if (measured) {
                counts.sent++;
                counts.maxSendLagMicros = Math.max(counts.maxSendLagMicros, TimeUnit.NANOSECONDS.toMicros(lagNanos));
            } else {
                counts.warmupSent++;
            }
        }

        synchronized void queued(int length) {
            counts.maxQueued = Math.max(counts.maxQueued, length);
        }

        synchronized void window(long measureFrom, int seconds) {
            this.measureFrom = measureFrom;
            counts.timelineMaxMicros = new long[seconds];
            counts.timelineShed = new long[seconds];
        }

        private int second(long intended) {
            long s = (intended - measureFrom) / 1_000_000_000L;
            return (int) Math.max(0, Math.min(s, counts.timelineShed.length - 1));
        }

        synchronized void answered(boolean measured, long intended, long latencyMicros, int status,
                                   RetryAfter retryAfter) {
            if (measured && !gaveUp) {
                lastMeasuredDoneNanos = System.nanoTime();
                record(all, latencyMicros);
                if (status >= 200 && status < 300) {
                    counts.ok++;
                    record(ok, latencyMicros);
                    int sec = second(intended);
                    counts.timelineMaxMicros[sec] = Math.max(counts.timelineMaxMicros[sec], latencyMicros);
                } else if (status == 503) {
                    counts.shed++;
                    counts.timelineShed[second(intended)]++;
                    if (retryAfter == RetryAfter.MISSING) {
                        counts.retryAfterMissing++;
                    } else if (retryAfter == RetryAfter.INVALID) {
                        counts.retryAfterInvalid++;
                    }
                } else {
                    counts.otherStatus++;
                    counts.otherStatuses.merge(status, 1L, Long::sum);
                }
            }
            done();
        }

        synchronized void failed(boolean measured, long intended, long latencyMicros, boolean timedOut) {
            if (measured && !gaveUp) {
                lastMeasuredDoneNanos = System.nanoTime();
                record(all, latencyMicros);
                if (timedOut) {
                    counts.timeouts++;
                } else {
                    counts.ioErrors++;
                }
            }
            done();
        }

        private void record(Histogram h, long micros) {
            if (micros > MAX_LATENCY_MICROS) {
                counts.clamped++;
                micros = MAX_LATENCY_MICROS;
            }
            h.recordValue(Math.max(0, micros));
        }

        private void done() {
            lastDoneNanos = System.nanoTime();
            if (--outstanding == 0) {
                notifyAll();
            }
        }

        /** Waits until nothing is outstanding, or until {@code quiet} passed without any request finishing. */
        synchronized boolean awaitAllDone(Duration quiet) {
            while (outstanding > 0) {
                long left = lastDoneNanos + quiet.toNanos() - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }

        /** Freezes the counts: what is still outstanding in the measured window is unfinished. */
        synchronized void giveUp() {
            gaveUp = true;
        }

        synchronized LoadResult result(double targetRate) {
            long answered = counts.ok + counts.shed + counts.otherStatus + counts.ioErrors + counts.timeouts;
            counts.unfinished = counts.sent - answered;
            double windowSeconds = (measureEndNanos - measureStartNanos) / 1e9;
            // Throughput: answers over the time from the first measured send to the last measured answer.
            long lastAnswer = lastMeasuredDoneNanos - measureEndNanos > 0 ? lastMeasuredDoneNanos : measureEndNanos;
            double answerSeconds = (lastAnswer - measureStartNanos) / 1e9;
            return new LoadResult(targetRate, windowSeconds > 0 ? counts.sent / windowSeconds : 0,
                answered > 0 && answerSeconds > 0 ? answered / answerSeconds : 0, counts.copy(), ok.copy(),
                all.copy());
        }
    }
}
