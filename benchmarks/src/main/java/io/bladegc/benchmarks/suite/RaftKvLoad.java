package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.raftkv.KvCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

/**
 * Open-loop load on the replicated key-value store through several asynchronous Ratis clients: request <i>i</i> is
 * due at {@code start + i / rate}, sent by client {@code i mod clients}; three in four are linearizable gets
 * ({@code async().sendReadOnly}), one in four puts ({@code async().send}) of a 100-byte value, each on a key drawn
 * uniformly from the preloaded {@code key-0 .. key-(keys-1)} (seeded). Latency runs from the intended send time to the
 * answer (no coordinated omission), microseconds, HdrHistogram with 3 significant digits, one interval histogram per
 * second into an HdrHistogram log. A put or get refused by a leader stepping down (as Blade makes it before it
 * collects) is sent again as a new call 50 ms later, still timed from its first intended time. An answer from another
 * server than the same client's previous answer counts as <em>moved</em>: it followed a leader change.
 *
 * <p>Use: {@link #run} once; not reusable. Completions arrive on Ratis's threads; counters are atomic.
 */
public final class RaftKvLoad {
    /** Longest latency recorded; longer ones are recorded as this. */
    static final long MAX_LATENCY_MICROS = TimeUnit.SECONDS.toMicros(60);
    /** Puts in every {@value #GETS_PER_PUT} + 1 requests. */
    static final int GETS_PER_PUT = 3;
    /** Bytes of every put's value. */
    static final int VALUE_BYTES = 100;
    private static final int MAX_ATTEMPTS = 30;
    private static final long RESEND_DELAY_MS = 50;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);
    private static final long SEED = 42;

    /**
     * What the measured window saw (requests whose intended time fell in it).
     *
     * @param latency  every answered request, microseconds
     * @param moved    the answered requests that came from another server than their client's previous answer
     * @param sent     requests due in the window
     * @param errors   requests answered with an error (other than a step-down, which is sent again)
     * @param timeouts requests without an answer within the clients' retry policy or by the end of the drain
     * @param resent   step-down refusals sent again
     * @param sendLag  the latest the generator sent a request of the window after its intended time, microseconds
     * @param seconds  the window's length, or longer when the generator fell behind: from its start until the
     *                 window's last request was sent
     */
    public record Result(Histogram latency, Histogram moved, long sent, long errors, long timeouts, long resent,
                         long sendLag, double seconds) {
        /** @return answered requests per second */
        public double achievedRate() {
            return latency.getTotalCount() / seconds;
        }
    }

    private final RaftGroup group;
    private final double rate;
    private final int keys;
    private final Recorder recorder = new Recorder(MAX_LATENCY_MICROS, 3);
    private final Histogram moved = new Histogram(MAX_LATENCY_MICROS, 3);
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong timeouts = new AtomicLong();
    private final AtomicLong resent = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private final ScheduledExecutorService resender = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "raft-kv-resend");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param group the store's group
     * @param rate  requests per second, positive
     * @param keys  how many keys were preloaded, positive
     */
    public RaftKvLoad(RaftGroup group, double rate, int keys) {
        if (!(rate > 0) || keys <= 0) {
            throw new IllegalArgumentException("rate and keys must be positive: " + rate + ", " + keys);
        }
        this.group = group;
        this.rate = rate;
        this.keys = keys;
    }

    /**
     * Runs warm-up then the measured window, then waits up to {@code drain} for the window's last answers.
     *
     * @param clients        how many Ratis clients share the load, round robin
     * @param warmup         load before the window, not recorded
     * @param measure        the window
     * @param drain          how long to wait for outstanding answers after the window
     * @param hlog           the interval log of the window's latencies (replaced)
     * @param onMeasureStart run on its own thread when the window starts; {@code run} waits for it before returning
     * @param onMeasureEnd   run on the calling thread once the window's last request is sent, before the drain
     * @return the window's result
     */
    public Result run(int clients, Duration warmup, Duration measure, Duration drain, Path hlog,
                      Runnable onMeasureStart, Runnable onMeasureEnd) throws IOException, InterruptedException {
        List<RaftClient> raft = new ArrayList<>();
        List<AtomicReference<RaftPeerId>> lastServer = new ArrayList<>();
        Thread starter = new Thread(onMeasureStart, "raft-kv-window-start");
        try (PrintStream out = new PrintStream(hlog.toFile())) {
            for (int c = 0; c < clients; c++) {
                raft.add(client(group));
                lastServer.add(new AtomicReference<>());
            }
            HistogramLogWriter log = new HistogramLogWriter(out);
            log.outputComment("raft-kv open-loop load: latency of answered requests, microseconds, from each"
                + " intended send time");
            log.outputLogFormatVersion();
            Histogram total = new Histogram(MAX_LATENCY_MICROS, 3);
            Histogram interval = null;
            SplittableRandom random = new SplittableRandom(SEED);
            long gap = (long) (1e9 / rate);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            long windowStart = start + warmup.toNanos();
            long end = windowStart + measure.toNanos();
            long nextFlush = windowStart + TimeUnit.SECONDS.toNanos(1);
            long sent = 0;
            long sendLag = 0;
            boolean measuring = false;
            String value = "x".repeat(VALUE_BYTES);
            for (long i = 0; ; i++) {
                long due = start + (long) (i * 1e9 / rate);
                if (due >= end) {
                    break;
                }
                if (!measuring && due >= windowStart) {
                    measuring = true;
                    log.setBaseTime(System.currentTimeMillis());
                    log.outputStartTime(System.currentTimeMillis());
                    log.outputLegend();
                    starter.start();
                }
                if (measuring && due >= nextFlush) {
                    interval = flush(log, interval, total);
                    nextFlush += TimeUnit.SECONDS.toNanos(1);
                }
                for (long now = System.nanoTime(); now < due; now = System.nanoTime()) {
                    LockSupport.parkNanos(Math.min(due - now, gap));
                }
                if (measuring) {
                    sendLag = Math.max(sendLag, System.nanoTime() - due);
                }
                int c = (int) (i % clients);
                String key = KvCommand.Preload.keyOf(random.nextInt(keys));
                KvCommand command = random.nextInt(GETS_PER_PUT + 1) == 0
                    ? new KvCommand.Put(key, value) : new KvCommand.Get(key);
                if (measuring) {
                    sent++;
                    unanswered.incrementAndGet();
                }
                send(raft.get(c), lastServer.get(c), command, due, measuring, 1);
            }
            double seconds = (Math.max(end, System.nanoTime()) - windowStart) / 1e9;
            onMeasureEnd.run();
            long drainEnd = System.nanoTime() + drain.toNanos();
            while (unanswered.get() > 0 && System.nanoTime() < drainEnd) {
                Thread.sleep(20);
            }
            timeouts.addAndGet(Math.max(0, unanswered.get()));
            flush(log, interval, total);
            starter.join();
            synchronized (moved) {
                return new Result(total, moved.copy(), sent, errors.get(), timeouts.get(), resent.get(),
                    sendLag / 1000, seconds);
            }
        } finally {
            resender.shutdownNow();
            for (RaftClient c : raft) {
                c.close();
            }
        }
    }

    private Histogram flush(HistogramLogWriter log, Histogram reuse, Histogram total) {
        Histogram h = recorder.getIntervalHistogram(reuse);
        log.outputIntervalHistogram(h);
        total.add(h);
        return h;
    }

    private static RaftClient client(RaftGroup group) {
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties,
            TimeDuration.valueOf(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        // more than a leader change can hold up, so that sending never blocks the schedule
        RaftClientConfigKeys.Async.setOutstandingRequestsMax(properties, 10_000);
        return RaftClient.newBuilder().setRaftGroup(group).setProperties(properties)
            .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(10,
                TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
            .build();
    }

    private void send(RaftClient client, AtomicReference<RaftPeerId> lastServer, KvCommand command, long due,
                      boolean measured, int attempt) {
        Message message = Message.valueOf(ByteString.copyFrom(command.encode()));
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = command.isWrite() ? client.async().send(message) : client.async().sendReadOnly(message);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, e) -> {
            Throwable failure = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (failure == null && !r.isSuccess()) {
                failure = r.getException();
            }
            if (failure instanceof LeaderSteppingDownException && attempt < MAX_ATTEMPTS) {
                if (measured) {
                    resent.incrementAndGet();
                }
                try {
                    resender.schedule(() -> send(client, lastServer, command, due, measured, attempt + 1),
                        RESEND_DELAY_MS, TimeUnit.MILLISECONDS);
                    return;
                } catch (RuntimeException closed) {
                    failure = closed;
                }
            }
            long micros = Math.min(MAX_LATENCY_MICROS, Math.max(0, (System.nanoTime() - due) / 1000));
            RaftPeerId previous = failure == null ? lastServer.getAndSet(r.getServerId()) : null;
            if (!measured) {
                return;
            }
            if (failure == null) {
                recorder.recordValue(micros);
                if (previous != null && !previous.equals(r.getServerId())) {
                    synchronized (moved) {
                        moved.recordValue(micros);
                    }
                }
            } else if (isTimeout(failure)) {
                timeouts.incrementAndGet();
            } else {
                errors.incrementAndGet();
            }
            unanswered.decrementAndGet();
        });
    }

    private static boolean isTimeout(Throwable t) {
        String name = t.getClass().getSimpleName();
        return name.contains("Timeout") || name.equals("RaftRetryFailureException");
    }
}
