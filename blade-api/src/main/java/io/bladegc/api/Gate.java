package io.bladegc.api;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A node's front door and its in-flight count, independent of servlets.
 *
 * <p>Request threads call {@link #tryEnter()} when a request arrives and, only when it returned {@code true},
 * {@link #exit()} exactly once when that request is finished. Blade closes the gate, waits for the requests already
 * admitted (the trailers) with {@link #awaitDrained(Duration)}, collects, and opens the gate again. A request
 * admitted by {@code tryEnter} is never cut off: closing only refuses new ones.
 *
 * <p>The whole state is one {@link AtomicLong}: bit 62 says closed, the low bits count requests in flight. Entering
 * and leaving are one atomic add each, wait-free and allocation-free; a refused entry is also counted
 * ({@link #shed()}, a striped counter, touched only while the gate is closed). Because the state word and the drain wake-up
 * are JDK types, two copies of this class loaded by different class loaders (a webapp's and the agent's) can share
 * one gate; see {@link Blade#node()}.
 *
 * <p>Thread-safe. {@link #close()}, {@link #awaitDrained(Duration)} and {@link #open()} are meant for one controlling
 * thread at a time (Blade's own).
 */
public final class Gate {
    /**
     * The servlet request attribute set by whoever admitted a request through the gate (a Blade filter, or the
     * agent's zero-code servlet instrumentation), so that an inner Blade filter or instrumented entry does not count
     * it again. Its value is {@link Boolean#TRUE}; an entry that finds it on a {@code REQUEST} dispatch passes the
     * request on without entering the gate.
     */
    public static final String ADMITTED_ATTRIBUTE = "io.bladegc.gate.admitted";

    static final long CLOSED = 1L << 62;
    private static final long COUNT_MASK = CLOSED - 1;

    private final AtomicLong state;
    private final Runnable onDrained;
    private final LongAdder shed;
    private volatile Thread drainer;

    /** A new, open gate with nobody in flight. */
    public Gate() {
        this.state = new AtomicLong();
        this.onDrained = this::wakeDrainer;
        this.shed = new LongAdder();
    }

    /**
     * A view onto a gate owned elsewhere, through its JDK-typed parts.
     *
     * @param state     the shared state word
     * @param onDrained called by {@link #exit()} when the last request leaves a closed gate
     * @param shed      the shared count of refused entries
     */
    Gate(AtomicLong state, Runnable onDrained, LongAdder shed) {
        this.state = state;
        this.onDrained = onDrained;
        this.shed = shed;
    }

    AtomicLong stateWord() {
        return state;
    }

    Runnable drainedSignal() {
        return onDrained;
    }

    LongAdder shedCounter() {
        return shed;
    }

    /**
     * Admits a request if the gate is open.
     *
     * @return {@code true} when admitted (the caller must later call {@link #exit()} once); {@code false} when the
     *     gate is closed (the caller sheds the request and must not call {@code exit})
     */
    public boolean tryEnter() {
        if ((state.get() & CLOSED) != 0) {
            shed.increment(); // closed: one volatile read, and a striped counter
            return false;
        }
        long before = state.getAndIncrement();
        if ((before & CLOSED) == 0) {
            return true;
        }
        exit();
        shed.increment();
        return false;
    }

    /** Marks one admitted request finished. Call exactly once per successful {@link #tryEnter()}. */
    public void exit() {
        if (state.decrementAndGet() == CLOSED) {
            onDrained.run();
        }
    }

    /** @return whether new requests are admitted */
    public boolean isOpen() {
        return (state.get() & CLOSED) == 0;
    }

    /** @return entries refused because the gate was closed, since the node started */
    public long shed() {
        return shed.sum();
    }

    /** @return requests admitted and not yet finished (a refused request may show for an instant) */
    public long inFlight() {
        return state.get() & COUNT_MASK;
    }

    /**
     * Stops admitting new requests. Requests already in flight go on.
     *
     * @return {@code true} if this call closed the gate, {@code false} if it was closed already
     */
    public boolean close() {
        long s;
        do {
            s = state.get();
            if ((s & CLOSED) != 0) {
                return false;
            }
        } while (!state.compareAndSet(s, s | CLOSED));
        return true;
    }

    /** Admits new requests again. */
    public void open() {
        long s;
        do {
            s = state.get();
        } while ((s & CLOSED) != 0 && !state.compareAndSet(s, s & COUNT_MASK));
    }

    /**
     * Waits until no request is in flight. Only meaningful while the gate is closed.
     *
     * @param timeout the longest wait
     * @return {@code true} when drained, {@code false} when the deadline passed with requests still in flight
     */
    public boolean awaitDrained(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        drainer = Thread.currentThread();
        try {
            while (inFlight() != 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                // Woken by exit(); the bounded park also covers a wake-up that raced with this check.
                LockSupport.parkNanos(this, Math.min(left, 1_000_000L));
            }
            return true;
        } finally {
            drainer = null;
        }
    }

    private void wakeDrainer() {
        Thread t = drainer;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public String toString() {
        return "Gate[" + (isOpen() ? "open" : "closed") + ", inFlight=" + inFlight() + "]";
    }
}
