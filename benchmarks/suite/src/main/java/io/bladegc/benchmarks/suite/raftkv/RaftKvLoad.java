package io.bladegc.benchmarks.suite.raftkv;

import io.bladegc.benchmarks.raftkv.KvCommand;
import io.bladegc.benchmarks.suite.harness.IntervalHistogramLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Open-loop load on the replicated key-value store: request <i>i</i> is due at {@code start + i / rate}; three in
 * four are linearizable gets ({@code io().sendReadOnly}), one in four puts ({@code io().send}), keys and values as
 * the {@link RaftKvWorkload} draws them (seeded). Latency runs from
 * the intended send time to the answer (no coordinated omission), microseconds, HdrHistogram with 3 significant
 * digits, one interval histogram per second into an HdrHistogram log; every request of the window is also kept with
 * its due time ({@link RaftKvRequests}).
 *
 * <p>All calls share one Ratis client, as an application's request threads share the one client of their process: each
 * call is a blocking call ({@code io()}) on one of {@value RaftKvClients#REQUEST_THREADS} request threads, and a
 * blocking call is one gRPC call of its own with its own deadline, so a slow call holds only itself. Sharing matters at
 * a leader change: the first call redirected teaches the client the new leader, and every later call goes there. (Until
 * 2026-11-26 every call had its own client of a pool of a second's worth, 100; after each hand-off each of them then
 * had to be redirected once, for up to ten seconds, and meanwhile kept sending reads to peers it took for the leader,
 * which Blade's collections there then held.) The client and its retry policy come from {@link RaftKvClients}: no call
 * is given up before its deadline; a call that fails before it counts as failed, one without an answer by then (or by
 * the end of the drain) as timed out.
 *
 * <p>Use: {@link #run} once; not reusable. Completions arrive on the calls' threads; counters are atomic.
 */
public final class RaftKvLoad {
    /** Longest latency recorded; longer ones are recorded as this. */
    static final long MAX_LATENCY_MICROS = TimeUnit.SECONDS.toMicros(60);
    private static final long SEED = 42;

    /**
     * What the measured window saw (requests whose intended time fell in it).
     *
     * @param latency           every answered request, microseconds
     * @param requests          every request of the window, with its due time and outcome
     * @param leaderResends     attempts sent again because leadership was moving
     *                          ({@link RaftKvClients#LEADER_CHANGES})
     * @param otherResends      attempts sent again for another reason (attempt timeouts among them)
     * @param failureCauses     the failed calls by what failed them (the exception's simple class name)
     * @param sendLag           the latest the generator sent a request of the window after its intended time,
     *                          microseconds
     * @param seconds           the window's length, or longer when the generator fell behind: from its start until
     *                          the window's last request was sent
     */
    public record Result(Histogram latency, RaftKvRequests requests, long leaderResends, long otherResends,
                         Map<String, Long> failureCauses, long sendLag, double seconds) {
        /** @return answered requests per second */
        public double achievedRate() {
            return latency.getTotalCount() / seconds;
        }
    }

    private final RaftGroup group;
    private final double rate;
    private final RaftKvWorkload workload;
    private volatile IntervalHistogramLog latencies;
    private final AtomicLong leaderResends = new AtomicLong();
    private final AtomicLong otherResends = new AtomicLong();
    private final AtomicLong unanswered = new AtomicLong();
    private final Map<String, LongAdder> failureCauses = new ConcurrentHashMap<>();
    private volatile RaftKvRequests requests;
    /** The request whose call runs on this thread: the retry policy of the blocking API runs on the caller's. */
    private final ThreadLocal<Request> calling = new ThreadLocal<>();
    private volatile boolean over;

    /**
     * @param group    the store's group
     * @param rate     requests per second, positive
     * @param workload what was preloaded and what the puts write
     */
    public RaftKvLoad(RaftGroup group, double rate, RaftKvWorkload workload) {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("the rate must be positive: " + rate);
        }
        this.group = group;
        this.rate = rate;
        this.workload = workload;
    }

    /**
     * Runs warm-up then the measured window, then waits for the window's last answers: at most until the last
     * request's deadline ({@link RaftKvClients#DEADLINE}) and a second more.
     *
     * @param warmup         load before the window, not recorded
     * @param measure        the window
     * @param hlog           the interval log of the window's latencies (replaced)
     * @param onMeasureStart run on its own thread when the window starts; {@code run} waits for it before returning
     * @param onMeasureEnd   run on the calling thread once the window's last request is sent, before the wait for
     *                       its answers
     * @return the window's result
     */
    public Result run(Duration warmup, Duration measure, Path hlog, Runnable onMeasureStart, Runnable onMeasureEnd)
            throws IOException, InterruptedException {
        Thread starter = new Thread(onMeasureStart, "raft-kv-window-start");
        starter.setDaemon(true);
        try (IntervalHistogramLog log = new IntervalHistogramLog(hlog, "raft-kv open-loop load: latency of answered"
                + " requests, microseconds, from each intended send time", MAX_LATENCY_MICROS);
             RaftClient client = RaftKvClients.create(group, this::resent)) {
            latencies = log;
            SplittableRandom random = new SplittableRandom(SEED);
            long gap = (long) (1e9 / rate);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            long windowStart = start + warmup.toNanos();
            long end = windowStart + measure.toNanos();
            long nextFlush = windowStart + TimeUnit.SECONDS.toNanos(1);
            long sendLag = 0;
            String value = "x".repeat(RaftKvWorkload.VALUE_BYTES);
            for (long i = 0; ; i++) {
                long due = start + (long) (i * 1e9 / rate);
                if (due >= end) {
                    break;
                }
                if (requests == null && due >= windowStart) {
                    long epochMillis = System.currentTimeMillis() + (windowStart - System.nanoTime()) / 1_000_000;
                    requests = new RaftKvRequests(epochMillis, (int) Math.ceil(measure.toNanos() / 1e9 * rate) + 1);
                    log.start(epochMillis);
                    starter.start();
                }
                if (requests != null && due >= nextFlush) {
                    log.flush();
                    nextFlush += TimeUnit.SECONDS.toNanos(1);
                }
                for (long now = System.nanoTime(); now < due; now = System.nanoTime()) {
                    LockSupport.parkNanos(Math.min(due - now, gap));
                }
                KvCommand command = workload.next(random, value);
                int index = -1;
                if (requests != null) {
                    sendLag = Math.max(sendLag, System.nanoTime() - due);
                    index = requests.add((due - windowStart) / 1000);
                    if (command.isWrite()) {
                        requests.put(index);
                    }
                    unanswered.incrementAndGet();
                }
                new Request(command, due, index).send(client);
            }
            double seconds = (Math.max(end, System.nanoTime()) - windowStart) / 1e9;
            onMeasureEnd.run();
            long drainEnd = System.nanoTime() + RaftKvClients.DEADLINE.plusSeconds(1).toNanos();
            while (unanswered.get() > 0 && System.nanoTime() < drainEnd) {
                Thread.sleep(20);
            }
            over = true; // what is still out now timed out; closing the client fails it, which no longer counts
            log.flush();
            starter.join();
            Map<String, Long> causes = new TreeMap<>();
            failureCauses.forEach((cause, n) -> causes.put(cause, n.sum()));
            return new Result(log.total().copy(), requests, leaderResends.get(), otherResends.get(), causes,
                sendLag / 1000, seconds);
        }
    }

    /** The retry policy sent an attempt again: counted, and marked on the request when it is measured. */
    private void resent(RaftClientRequest attempt, Throwable cause) {
        Request r = calling.get();
        if (r == null || r.index < 0) {
            return;
        }
        if (RaftKvClients.isLeaderChange(cause)) {
            leaderResends.incrementAndGet();
            requests.resentForLeaderChange(r.index);
        } else {
            otherResends.incrementAndGet();
        }
        if (cause instanceof TimeoutIOException) {
            requests.attemptTimedOut(r.index, String.valueOf(attempt.getServerId()));
        }
    }

    /** One request on its way; {@code index} its place in the window, -1 in the warm-up. */
    private final class Request {
        private final KvCommand command;
        private final long due;
        private final int index;
        private volatile long sentNanos;

        Request(KvCommand command, long due, int index) {
            this.command = command;
            this.due = due;
            this.index = index;
        }

        /** Sends it on a request thread; {@link #completed} is called there with the outcome. */
        void send(RaftClient client) {
            sentNanos = System.nanoTime();
            Message message = Message.valueOf(ByteString.copyFrom(command.encode()));
            RaftKvClients.call(() -> {
                calling.set(this);
                try {
                    return RaftKvClients.send(client, message, command.isWrite());
                } finally {
                    calling.remove();
                }
            }).whenComplete((r, e) -> completed(r, e instanceof CompletionException && e.getCause() != null
                ? e.getCause() : e));
        }

        /**
         * @param reply   the reply, null when the call failed
         * @param failure why it failed, null when it got a reply
         */
        void completed(RaftClientReply reply, Throwable failure) {
            if (index < 0 || over) {
                return;
            }
            long now = System.nanoTime();
            if (failure == null && reply.isSuccess()) {
                long micros = Math.min(MAX_LATENCY_MICROS, Math.max(0, (now - due) / 1000));
                latencies.record(micros);
                requests.answered(index, micros);
                requests.answeredBy(index, reply.getServerId().toString());
            } else if (sentNanos != 0 && now - sentNanos >= RaftKvClients.DEADLINE.toNanos()) {
                requests.timedOut(index);
            } else {
                requests.failed(index);
                Throwable cause = failure != null ? failure : reply.getException();
                while ((cause instanceof CompletionException || cause instanceof UncheckedIOException)
                    && cause.getCause() != null) {
                    cause = cause.getCause();
                }
                failureCauses.computeIfAbsent(cause == null ? "(no exception)" : cause.getClass().getSimpleName(),
                    k -> new LongAdder()).increment();
            }
            unanswered.decrementAndGet();
        }
    }
}
