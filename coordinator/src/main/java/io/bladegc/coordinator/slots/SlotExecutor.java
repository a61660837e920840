package io.bladegc.coordinator.slots;

import java.util.concurrent.RejectedExecutionException;

/**
 * What owns the ledger: runs tasks one at a time, in the order they were submitted, now or after a delay, so the
 * ledger needs no lock. A task may run on the submitting thread before {@link #execute} returns (the coordinator's
 * {@link SerialSlotExecutor} does that when no other task runs), so a submitter must not hold a lock a task needs. An
 * interface so that tests can run the service on a hand-driven fake (time advanced explicitly, tasks run inline).
 *
 * <p>Implementations are thread-safe: any thread may submit.
 */
public interface SlotExecutor {

    /**
     * Runs {@code task} after the tasks submitted before it, never at the same time as another task.
     *
     * @throws RejectedExecutionException after {@link #shutdown}
     */
    void execute(Runnable task);

    /**
     * Runs {@code task} like {@link #execute} once {@code delayMillis} have passed.
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
}
