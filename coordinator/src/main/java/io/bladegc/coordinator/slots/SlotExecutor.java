package io.bladegc.coordinator.slots;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The single thread that owns the ledger: runs tasks one at a time, in order, now or after a delay. An interface so
 * that tests can run the service on a hand-driven fake (time advanced explicitly, tasks run inline).
 *
 * <p>Implementations are thread-safe: any thread may submit.
 */
public interface SlotExecutor {

    /**
     * Runs {@code task} on the owning thread, after the tasks submitted before it.
     *
     * @throws RejectedExecutionException after {@link #shutdown}
     */
    void execute(Runnable task);

    /**
     * Runs {@code task} on the owning thread after {@code delayMillis}.
     *
     * @return a handle that cancels the task if it has not run yet
     * @throws RejectedExecutionException after {@link #shutdown}
     */
    Cancellable schedule(Runnable task, long delayMillis);

    /** Refuses new tasks, drops delayed ones, and waits up to {@code awaitMillis} for the running ones. */
    void shutdown(long awaitMillis);

    /** Cancels a scheduled task. */
    interface Cancellable {
        /** Cancels the task; no effect when it has run or was cancelled already. */
        void cancel();
    }

    /**
     * @param threadName the name of the (daemon) thread
     * @return an executor backed by one named daemon thread
     */
    static SlotExecutor singleThread(String threadName) {
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, task -> {
            Thread t = new Thread(task, threadName);
            t.setDaemon(true);
            return t;
        });
        pool.setRemoveOnCancelPolicy(true); // cancelled long-poll timeouts must not pile up until they were due
        pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return new SlotExecutor() {
            @Override
            public void execute(Runnable task) {
                pool.execute(task);
            }

            @Override
            public Cancellable schedule(Runnable task, long delayMillis) {
                ScheduledFuture<?> f = pool.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
                return () -> f.cancel(false);
            }

            @Override
            public void shutdown(long awaitMillis) {
                pool.shutdown();
                try {
                    pool.awaitTermination(awaitMillis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }
}
