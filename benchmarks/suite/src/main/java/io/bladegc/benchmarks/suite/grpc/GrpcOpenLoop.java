package io.bladegc.benchmarks.suite.grpc;

import io.bladegc.benchmarks.suite.harness.CallSchedule;
import io.bladegc.benchmarks.suite.harness.IntervalHistogramLog;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Open-loop unary calls ({@code grpc.testing.SimpleService/UnaryCall}) on one channel: call {@code i} is issued at its
 * due time ({@link CallSchedule}) whatever the earlier calls did, late ones at once, none skipped, each with a
 * deadline of {@link #DEADLINE}. A call's latency runs from its due time to its final status (no coordinated
 * omission), retries included: the channel's retry policy sends a shed call again, and the client sees only the
 * final status. The measured window's OK calls go into an HdrHistogram ({@link IntervalHistogramLog}: one interval
 * per second into {@code <arm>-rep<N>.hlog}); every other final status is a failed call, counted by status code, and
 * so is a call with no final status when the drain after the window ends ({@value #UNFINISHED}).
 *
 * <p>Use: {@link #run} once; not reusable. Calls are issued on the caller's thread; completions arrive on grpc-java's
 * threads; counters are atomic.
 */
final class GrpcOpenLoop {
    /** Longest latency recorded; longer ones are recorded as this. */
    static final long MAX_LATENCY_MICROS = TimeUnit.SECONDS.toMicros(60);
    /** Every call's deadline, from when it is issued. */
    static final Duration DEADLINE = Duration.ofSeconds(10);
    /** The failure count of calls without a final status by the end of the drain. */
    static final String UNFINISHED = "unfinished";

    /**
     * What the measured window saw (calls due in it).
     *
     * @param ok             latency of the calls that ended OK, microseconds
     * @param calls          calls issued
     * @param failedByStatus failed calls by final status code ({@value #UNFINISHED}: none by the end of the drain)
     * @param achievedRate   calls issued per second, over the window or longer when the client fell behind
     * @param sendLagMicros  the latest a call was issued after its due time
     */
    record Result(Histogram ok, long calls, Map<String, Long> failedByStatus, double achievedRate,
                  long sendLagMicros) {
        /** @return calls whose final status was not OK, unfinished ones included */
        long failed() {
            return failedByStatus.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private final Channel channel;
    private final double rate;
    private final AtomicLong outstanding = new AtomicLong();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private volatile IntervalHistogramLog latencies;
    private volatile boolean over;

    /**
     * @param channel the channel the calls go out on (its balancing and retry policy apply)
     * @param rate    calls per second, positive
     */
    GrpcOpenLoop(Channel channel, double rate) {
        this.channel = channel;
        this.rate = rate;
    }

    /**
     * Runs warm-up then the measured window, then waits for the window's last calls, at most {@link #DEADLINE} and a
     * second more.
     *
     * @param warmup         calls before the window, not measured
     * @param measure        the window
     * @param hlog           the interval log of the window's OK latencies (replaced)
     * @param onMeasureStart run on a thread of its own when the window starts; {@code run} waits for it to end
     * @param onMeasureEnd   run on the calling thread once the window's last call is issued, before the drain
     * @return the window's result
     */
    Result run(Duration warmup, Duration measure, Path hlog, Runnable onMeasureStart, Runnable onMeasureEnd)
            throws IOException, InterruptedException {
        Thread starter = new Thread(onMeasureStart, "grpc-cluster-window-start");
        starter.setDaemon(true);
        SimpleServiceGrpc.SimpleServiceStub stub = SimpleServiceGrpc.newStub(channel);
        SimpleRequest request = SimpleRequest.getDefaultInstance();
        try (IntervalHistogramLog log = new IntervalHistogramLog(hlog, "grpc-cluster open-loop load: latency of OK"
                + " unary calls, microseconds, from each intended start", MAX_LATENCY_MICROS)) {
            latencies = log;
            CallSchedule schedule = new CallSchedule(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100), rate,
                warmup, measure);
            long second = TimeUnit.SECONDS.toNanos(1);
            long nextFlush = schedule.windowStart() + second;
            long calls = 0;
            long sendLag = 0;
            for (long i = 0; ; i++) {
                long due = schedule.due(i);
                if (due - schedule.end() >= 0) {
                    break;
                }
                boolean measured = schedule.measured(due);
                if (measured && calls == 0) {
                    log.start(System.currentTimeMillis() + (due - System.nanoTime()) / 1_000_000);
                    starter.start();
                }
                if (calls > 0 && due - nextFlush >= 0) {
                    log.flush();
                    nextFlush += second;
                }
                for (long now = System.nanoTime(); now - due < 0; now = System.nanoTime()) {
                    LockSupport.parkNanos(due - now);
                }
                if (measured) {
                    calls++;
                    sendLag = Math.max(sendLag, System.nanoTime() - due);
                    outstanding.incrementAndGet();
                }
                stub.withDeadlineAfter(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                    .unaryRpc(request, new Call(due, measured));
            }
            double seconds = (Math.max(schedule.end(), System.nanoTime()) - schedule.windowStart()) / 1e9;
            onMeasureEnd.run();
            long drainEnd = System.nanoTime() + DEADLINE.plusSeconds(1).toNanos();
            while (outstanding.get() > 0 && System.nanoTime() - drainEnd < 0) {
                Thread.sleep(20);
            }
            over = true;
            Map<String, Long> failed = new TreeMap<>();
            failures.forEach((status, n) -> failed.put(status, n.sum()));
            if (outstanding.get() > 0) {
                failed.put(UNFINISHED, outstanding.get());
            }
            log.flush();
            starter.join();
            return new Result(log.total().copy(), calls, failed, calls / seconds, sendLag / 1000);
        }
    }

    /** One call's outcome: measured ones are recorded until the drain is over. */
    private final class Call implements StreamObserver<SimpleResponse> {
        private final long due;
        private final boolean measured;

        Call(long due, boolean measured) {
            this.due = due;
            this.measured = measured;
        }

        @Override
        public void onNext(SimpleResponse value) {
            // the answer's content does not matter; its end does
        }

        @Override
        public void onCompleted() {
            if (measured && !over) {
                latencies.record((System.nanoTime() - due) / 1000);
                outstanding.decrementAndGet();
            }
        }

        @Override
        public void onError(Throwable t) {
            if (measured && !over) {
                failures.computeIfAbsent(Status.fromThrowable(t).getCode().name(), k -> new LongAdder()).increment();
                outstanding.decrementAndGet();
            }
        }
    }
}
