package io.bladegc.benchmarks.suite.raftkv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Every request of one measured window, in the order it was due: its intended send time, whether it was a put, how it
 * ended (answered after so many microseconds, failed, timed out, unanswered), which peer answered it, whether one of
 * its attempts waited out the attempt timeout and how many were sent again because leadership was moving. Answers
 * what the requests due in a stretch of wall-clock time saw ({@link #between}), e.g. in the second after a leadership
 * hand-off, and writes them all out ({@link #writeCsv}) to find where slow ones cluster.
 *
 * <p>Thread-safe for its use: one thread adds the requests ({@link #add}, in due order), any threads record outcomes
 * and flags; the questions are asked once the window's answers are in.
 */
public final class RaftKvRequests {
    private static final long UNANSWERED = -1;
    private static final long FAILED = -2;
    private static final long TIMED_OUT = -3;
    private static final int ATTEMPT_TIMED_OUT = 1;
    private static final int PUT = 2;
    /** The flags' bits above these count leader-change resends. */
    private static final int RESEND_SHIFT = 2;

    /**
     * What the requests due in a stretch of time saw.
     *
     * @param requests        how many were due in it
     * @param worstMicros     the longest latency of those answered, -1 when none was
     * @param failed          calls that failed before their deadline
     * @param timedOut        calls without an answer by their deadline (or by the end of the drain)
     * @param attemptTimeouts requests one of whose attempts got no answer within the attempt timeout (then sent again)
     */
    public record Stretch(int requests, long worstMicros, int failed, int timedOut, int attemptTimeouts) {
    }

    private final long startEpochMillis;
    private final long[] dueMicros;
    private final AtomicLongArray outcome;
    private final AtomicIntegerArray flags;
    private final AtomicReferenceArray<String> answeredBy;
    private final AtomicReferenceArray<String> timedOutAt;
    private int count;

    /**
     * @param startEpochMillis the window's start, wall clock (ms since the epoch)
     * @param capacity         how many requests the window can hold at most
     */
    RaftKvRequests(long startEpochMillis, int capacity) {
        this.startEpochMillis = startEpochMillis;
        this.dueMicros = new long[capacity];
        this.outcome = new AtomicLongArray(capacity);
        this.flags = new AtomicIntegerArray(capacity);
        this.answeredBy = new AtomicReferenceArray<>(capacity);
        this.timedOutAt = new AtomicReferenceArray<>(capacity);
    }

    /**
     * @param dueMicrosAfterStart when the request was due, microseconds after the window's start; not before the
     *                            previous request's
     * @return the request's index, for the outcome; unanswered until one is recorded
     * @throws IllegalStateException when the window is full
     */
    int add(long dueMicrosAfterStart) {
        if (count == dueMicros.length) {
            throw new IllegalStateException("more than " + count + " requests in the window");
        }
        dueMicros[count] = dueMicrosAfterStart;
        outcome.set(count, UNANSWERED);
        return count++;
    }

    /** @return the window's start, wall clock (ms since the epoch) */
    long startEpochMillis() {
        return startEpochMillis;
    }

    /** @return how many requests were added */
    int count() {
        return count;
    }

    void answered(int request, long latencyMicros) {
        outcome.set(request, Math.max(0, latencyMicros));
    }

    /** Marks the request a put (a get otherwise). */
    void put(int request) {
        flags.getAndUpdate(request, f -> f | PUT);
    }

    /** @param peer the peer whose reply answered the request */
    void answeredBy(int request, String peer) {
        answeredBy.set(request, peer);
    }

    void failed(int request) {
        outcome.set(request, FAILED);
    }

    void timedOut(int request) {
        outcome.set(request, TIMED_OUT);
    }

    /** @param peer the peer the attempt that waited out its timeout was sent to (the last such, when several) */
    void attemptTimedOut(int request, String peer) {
        flags.getAndUpdate(request, f -> f | ATTEMPT_TIMED_OUT);
        timedOutAt.set(request, peer);
    }

    void resentForLeaderChange(int request) {
        flags.getAndAdd(request, 1 << RESEND_SHIFT);
    }

    /**
     * Writes one line per request: {@code due_ms,kind,latency_ms,peer,leader_resends,attempt_timeout,timed_out_at},
     * the due time in ms after the window's start, {@code get} or {@code put}, the latency (empty when not answered),
     * the answering peer, the attempts sent again because leadership was moving, 1 when an attempt waited out its
     * timeout, and the peer that attempt was sent to.
     */
    void writeCsv(Path file) throws IOException {
        StringBuilder b = new StringBuilder(
            "due_ms,kind,latency_ms,peer,leader_resends,attempt_timeout,timed_out_at\n");
        for (int i = 0; i < count; i++) {
            long o = outcome.get(i);
            int f = flags.get(i);
            String peer = answeredBy.get(i);
            String lost = timedOutAt.get(i);
            b.append(String.format(Locale.ROOT, "%.3f,%s,%s,%s,%d,%d,%s%n", dueMicros[i] / 1000.0,
                (f & PUT) != 0 ? "put" : "get", o >= 0 ? String.format(Locale.ROOT, "%.3f", o / 1000.0) : "",
                peer == null ? "" : peer, f >>> RESEND_SHIFT, f & ATTEMPT_TIMED_OUT, lost == null ? "" : lost));
        }
        Files.writeString(file, b);
    }

    /** @return what every request of the window saw; still unanswered ones count as timed out */
    public Stretch all() {
        return stretch(0, count);
    }

    /**
     * @param fromEpochMillis the stretch's start, wall clock, inclusive
     * @param toEpochMillis   its end, inclusive
     * @return what the requests due in it saw; still unanswered ones count as timed out
     */
    Stretch between(long fromEpochMillis, long toEpochMillis) {
        long from = (fromEpochMillis - startEpochMillis) * 1000;
        long to = (toEpochMillis - startEpochMillis) * 1000;
        int first = 0;
        while (first < count && dueMicros[first] < from) {
            first++;
        }
        int end = first;
        while (end < count && dueMicros[end] <= to) {
            end++;
        }
        return stretch(first, end);
    }

    private Stretch stretch(int from, int to) {
        long worst = -1;
        int failed = 0;
        int timedOut = 0;
        int attemptTimeouts = 0;
        for (int i = from; i < to; i++) {
            long o = outcome.get(i);
            if (o >= 0) {
                worst = Math.max(worst, o);
            } else if (o == FAILED) {
                failed++;
            } else {
                timedOut++;
            }
            if ((flags.get(i) & ATTEMPT_TIMED_OUT) != 0) {
                attemptTimeouts++;
            }
        }
        return new Stretch(to - from, worst, failed, timedOut, attemptTimeouts);
    }
}
