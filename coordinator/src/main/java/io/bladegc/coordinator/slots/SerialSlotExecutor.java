package io.bladegc.coordinator.slots;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The coordinator's {@link SlotExecutor}, without a thread hop: tasks run one at a time, in the order they were
 * submitted, on the thread that submits them when no task is running, else on the thread already running tasks, which
 * runs the new one after the others. So a ledger call from a Netty I/O thread normally runs right there, instead of
 * being handed to a slot thread whose answer is then handed back to the I/O thread. Delayed tasks wait on one daemon
 * timer thread, which then submits them the same way.
 *
 * <p>Thread-safe. The running flag is taken and released with volatile semantics, so each task sees everything the
 * tasks before it did, whichever thread ran them. A task must not block: it holds up every other caller.
 */
final class SerialSlotExecutor implements SlotExecutor {
    private static final System.Logger LOG = System.getLogger(SerialSlotExecutor.class.getName());

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private final ScheduledThreadPoolExecutor timer;
    private volatile boolean shutdown;

    /** @param timerThreadName the name of the daemon thread that waits for delayed tasks */
    SerialSlotExecutor(String timerThreadName) {
        timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread t = new Thread(task, timerThreadName);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true); // cancelled long-poll timeouts must not pile up until they were due
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException("the slot executor is shut down");
        }
        tasks.add(task);
        drain();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayMillis) {
        if (shutdown) {
            throw new RejectedExecutionException("the slot executor is shut down");
        }
        AtomicBoolean cancelled = new AtomicBoolean();
        ScheduledFuture<?> due = timer.schedule(() -> {
            try {
                execute(() -> {
                    if (!cancelled.get()) {
                        task.run();
                    }
                });
            } catch (RejectedExecutionException e) {
                // shut down meanwhile: delayed tasks are dropped
            }
        }, delayMillis, TimeUnit.MILLISECONDS);
        return () -> {
            cancelled.set(true);
            due.cancel(false);
        };
    }

    @Override
    public void shutdown(long awaitMillis) {
        shutdown = true;
        timer.shutdownNow();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(awaitMillis);
        while ((running.get() || !tasks.isEmpty()) && System.nanoTime() < deadline) {
            drain();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Runs the queued tasks unless another thread does; a task queued while that thread lets go is not left behind. */
    private void drain() {
        while (!tasks.isEmpty() && running.compareAndSet(false, true)) {
            try {
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    try {
                        task.run();
                    } catch (RuntimeException | Error e) {
                        LOG.log(System.Logger.Level.ERROR, "slot task failed", e);
                    }
                }
            } finally {
                running.set(false);
            }
        }
    }
}
