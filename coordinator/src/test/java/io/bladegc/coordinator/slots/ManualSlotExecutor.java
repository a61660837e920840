package io.bladegc.coordinator.slots;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A hand-driven slot executor for tests: {@link #execute} runs the task at once on the caller's thread, delayed tasks
 * run when {@link #advance} moves the fake clock past their time. Single-threaded use only.
 */
public final class ManualSlotExecutor implements SlotExecutor {
    private record Delayed(long dueAt, long seq, Runnable task, boolean[] cancelled) {
    }

    private final AtomicLong now;
    private final PriorityQueue<Delayed> delayed =
        new PriorityQueue<>(Comparator.comparingLong(Delayed::dueAt).thenComparingLong(Delayed::seq));
    private long seq;
    private boolean shutdown;

    public ManualSlotExecutor(long startMillis) {
        this.now = new AtomicLong(startMillis);
    }

    /** @return the fake clock, for {@link SlotServiceBuilder#clock(LongSupplier)} */
    public LongSupplier clock() {
        return now::get;
    }

    public long now() {
        return now.get();
    }

    /** Moves the clock forward by {@code millis}, running every delayed task that falls due, in time order. */
    public void advance(long millis) {
        long target = now.get() + millis;
        while (true) {
            Delayed next = delayed.peek();
            if (next == null || next.dueAt() > target) {
                break;
            }
            delayed.poll();
            now.set(Math.max(now.get(), next.dueAt()));
            if (!next.cancelled()[0]) {
                next.task().run();
            }
        }
        now.set(target);
    }

    /** @return delayed tasks not yet run nor cancelled */
    public int pending() {
        List<Delayed> live = new ArrayList<>();
        for (Delayed d : delayed) {
            if (!d.cancelled()[0]) {
                live.add(d);
            }
        }
        return live.size();
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        task.run();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayMillis) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        boolean[] cancelled = {false};
        delayed.add(new Delayed(now.get() + delayMillis, seq++, task, cancelled));
        return () -> cancelled[0] = true;
    }

    @Override
    public void shutdown(long awaitMillis) {
        shutdown = true;
        delayed.clear();
    }
}
