package io.bladegc.benchmarks.load;

import io.bladegc.commandline.ToolCommandLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Open-loop, constant-rate HTTP load: request {@code i} is due at {@code start + i / rate}, whatever happened to the
 * earlier ones, and its latency is measured from that <em>intended</em> send time to the end of the response. A
 * server stall therefore shows in the latency of every request that was due during the stall, not just the one
 * being served (no coordinated omission; see Tene, "How NOT to measure latency", and paper 001 section 4.5).
 *
 * <p>One thread runs the whole load as an event loop: it waits for each intended time while serving the
 * connections' I/O ({@link NioSender}: a selector, keep-alive HTTP/1.1 connections, a response parser), so it never
 * waits for a response before sending the next request. Arrivals are evenly spaced or a Poisson process at the rate
 * ({@link Arrivals}). When the loop falls behind (a pause of this JVM) it sends at once and still times from the
 * intended time; the largest such lag is reported so a slow client is visible. Like a load balancer (or wrk2), the
 * client keeps at most {@link Builder#connections(int) a fixed number} of requests, hence connections, in flight; a
 * request due while all are busy waits in a client-side queue and is sent when one frees up, its latency still
 * counted from its intended time. (Unbounded, a server stall would make the client open one connection per request
 * due during the stall, and the server would hold buffers for all of them.) Requests due during the warm-up are sent
 * and awaited but not recorded. Every request sent in the measured window ends up in exactly one count: 2xx, 503,
 * other status, I/O error, timeout, or unfinished (still outstanding when the run gave up waiting).
 *
 * <p>Once the connections are open the loop allocates nothing per request ({@code NioSenderTest} measures it), so
 * the load generator can run under a collector that never pauses it: {@code -XX:+UnlockExperimentalVMOptions
 * -XX:+UseEpsilonGC} with a heap of a few hundred MB.
 *
 * <p>The parts: this class schedules; {@link NioSender} sends and reads; {@link LoadTally} counts outcomes and records
 * latencies in HdrHistograms; {@link LoadResult} is what a run measured; {@link LoadCommandLine} parses the command
 * line.
 *
 * <p>Thread-safety: an instance is immutable; each {@link #run()} uses its own client, threads and counts, so runs
 * (even concurrent ones) are independent.
 *
 * <p>Usage:
 * <pre>
 * java -jar benchmarks/loadgen/target/blade-loadgen.jar \
 *     --rate 1000 --duration 30s --warmup 10s [--timeout 10s] [--save result.properties] http://127.0.0.1:8080/work
 * </pre>
 */
public final class OpenLoopLoad {
    /** Highest latency the histograms track; larger values are clamped to it (and counted). */
    public static final long MAX_LATENCY_MICROS = TimeUnit.SECONDS.toMicros(60);
    /** How often {@link Builder#progress} is told. */
    public static final Duration PROGRESS_PERIOD = Duration.ofSeconds(5);
    /** Poisson arrivals repeat from run to run: the same gaps, in the same order. */
    private static final long POISSON_SEED = 20261122L;

    private final URI url;
    private final String method;
    private final double rate;
    private final Duration duration;
    private final Duration warmup;
    private final Duration timeout;
    private final Arrivals.Kind arrivals;
    private final Path intervalLog;
    private final int connections;
    private final Runnable onMeasureStart;
    private final Consumer<LoadProgress> progress;

    private OpenLoopLoad(Builder b) {
        this.url = Objects.requireNonNull(b.url, "url");
        this.method = b.method;
        this.rate = b.rate;
        this.duration = b.duration;
        this.warmup = b.warmup;
        this.timeout = b.timeout;
        this.arrivals = b.arrivals;
        this.intervalLog = b.intervalLog;
        this.connections = b.connections;
        this.onMeasureStart = b.onMeasureStart;
        this.progress = b.progress;
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("rate must be positive: " + rate);
        }
        if (duration.isNegative() || duration.isZero() || warmup.isNegative()) {
            throw new IllegalArgumentException("duration must be positive and warmup not negative");
        }
        if (timeout.isNegative() || timeout.isZero() || connections < 1) {
            throw new IllegalArgumentException("timeout must be positive and connections at least 1");
        }
        if (!"http".equals(url.getScheme()) || url.getHost() == null) {
            throw new IllegalArgumentException("url must be http://host[:port]/path: " + url);
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
        LoadTally tally = new LoadTally();
        int port = url.getPort() == -1 ? 80 : url.getPort();
        try (IntervalLog log = intervalLog == null ? null : new IntervalLog(intervalLog);
             NioSender sender = new NioSender(new InetSocketAddress(url.getHost(), port), request(), connections,
                 timeout, tally)) {
            tally.intervalLog(log);
            if (progress != null) {
                reportProgress(tally);
            }
            schedule(sender, tally);
            // Requests still queued client-side are sent as connections free up: wait as long as answers keep coming.
            long quietNanos = timeout.plusSeconds(5).toNanos();
            while (!sender.idle()) {
                long now = System.nanoTime();
                if (tally.quietSince(now) > quietNanos) {
                    tally.giveUp();
                    break;
                }
                sender.poll(now + TimeUnit.MILLISECONDS.toNanos(10));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("load against " + url + " failed", e);
        }
        return tally.result(rate);
    }

    /** Calls {@link #progress} every {@link #PROGRESS_PERIOD} on a daemon thread until the load's time is up. */
    private void reportProgress(LoadTally tally) {
        long start = System.nanoTime();
        long total = warmup.plus(duration).toNanos();
        Thread t = new Thread(() -> {
            long next = start + PROGRESS_PERIOD.toNanos();
            while (next - start < total) {
                LockSupport.parkNanos(next - System.nanoTime());
                if (System.nanoTime() - next < 0) {
                    continue; // woken early
                }
                progress.accept(tally.progress(System.nanoTime() - start, total));
                next += PROGRESS_PERIOD.toNanos();
            }
        }, "open-loop-progress");
        t.setDaemon(true);
        t.start();
    }

    private byte[] request() {
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        if (url.getRawQuery() != null) {
            path += "?" + url.getRawQuery();
        }
        String host = url.getPort() == -1 ? url.getHost() : url.getHost() + ":" + url.getPort();
        return (method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: blade-open-loop\r\n"
            + (method.equals("GET") || method.equals("HEAD") ? "" : "Content-Length: 0\r\n") + "\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    }

    private void schedule(NioSender sender, LoadTally tally) throws IOException {
        long periodNanos = Math.max(1, Math.round(1e9 / rate));
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long measureFrom = start + warmup.toNanos();
        long end = measureFrom + duration.toNanos();
        tally.window(measureFrom, (int) ((duration.toNanos() + 999_999_999L) / 1_000_000_000L));
        Arrivals due = new Arrivals(arrivals, rate, start, POISSON_SEED);
        boolean measuring = false;
        while (due.peek() < end) {
            long intended = due.next();
            sender.poll(intended);
            long now = System.nanoTime();
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

    /** Settings for {@link OpenLoopLoad}. Not thread-safe. */
    public static final class Builder {
        private final URI url;
        private String method = "GET";
        private double rate = 1000;
        private Duration duration = Duration.ofSeconds(30);
        private Duration warmup = Duration.ofSeconds(10);
        private Duration timeout = Duration.ofSeconds(10);
        private Arrivals.Kind arrivals = Arrivals.Kind.CONSTANT;
        private Path intervalLog;
        private int connections = 64;
        private Runnable onMeasureStart;
        private Consumer<LoadProgress> progress;

        private Builder(URI url) {
            this.url = url;
        }

        /** @param method HTTP method, sent without a body (default GET) */
        public Builder method(String method) {
            this.method = Objects.requireNonNull(method);
            return this;
        }

        /** @param perSecond requests per second (default 1000) */
        public Builder rate(double perSecond) {
            this.rate = perSecond;
            return this;
        }

        /** @param duration the measured window (default 30 s) */
        public Builder duration(Duration duration) {
            this.duration = Objects.requireNonNull(duration);
            return this;
        }

        /** @param warmup load before the measured window, not recorded (default 10 s) */
        public Builder warmup(Duration warmup) {
            this.warmup = Objects.requireNonNull(warmup);
            return this;
        }

        /** @param timeout per request: from its send to the end of its response (default 10 s) */
        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout);
            return this;
        }

        /**
         * @param file where to write an HdrHistogram interval log of the measured 2xx latencies (one histogram per
         *             second), or {@code null} for none (default)
         */
        public Builder intervalLog(Path file) {
            this.intervalLog = file;
            return this;
        }

        /** @param poisson {@code true} for Poisson arrivals at the rate, {@code false} for evenly spaced (default) */
        public Builder poisson(boolean poisson) {
            this.arrivals = poisson ? Arrivals.Kind.POISSON : Arrivals.Kind.CONSTANT;
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

        /**
         * @param each told every {@link #PROGRESS_PERIOD} while the load runs, on a thread of its own, how far it has
         *             come; {@code null} for nothing (default)
         */
        public Builder progress(Consumer<LoadProgress> each) {
            this.progress = each;
            return this;
        }

        /** @throws IllegalArgumentException when a value is out of range */
        public OpenLoopLoad build() {
            return new OpenLoopLoad(this);
        }
    }

    /**
     * Command line: see the class comment and {@link LoadCommandLine}. Prints the result table; exits 2 on a bad
     * option, 1 when requests were left unfinished.
     */
    public static void main(String[] args) throws IOException {
        LoadCommandLine command = ToolCommandLine.parseOrExit(new LoadCommandLine.Flags(), args);
        System.err.println(command.description());
        LoadResult result = command.load().run();
        System.out.println(result);
        if (command.save() != null) {
            result.save(command.save());
        }
        System.exit(result.unfinished() > 0 ? 1 : 0);
    }
}
