package io.bladegc.coordinator.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SerialSlotExecutorTest {
    private final SerialSlotExecutor executor = new SerialSlotExecutor("test-slots");

    @AfterEach
    void stop() {
        executor.shutdown(1_000);
    }

    @Test
    void aTaskRunsOnTheCallersThreadWhenNoOtherRuns() {
        List<String> ran = new ArrayList<>();
        executor.execute(() -> ran.add(Thread.currentThread().getName()));
        assertThat(ran).containsExactly(Thread.currentThread().getName());
    }

    @Test
    void aTaskSubmittedByATaskRunsAfterIt() {
        List<String> order = new ArrayList<>();
        executor.execute(() -> {
            executor.execute(() -> order.add("inner"));
            order.add("outer");
        });
        assertThat(order).containsExactly("outer", "inner");
    }

    @Test
    void tasksFromManyThreadsNeverOverlapAndNoneIsLost() throws Exception {
        int threads = 4;
        int perThread = 20_000;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] count = new int[1]; // plain field: only safe if the executor orders the tasks
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> submitters = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    executor.execute(() -> {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        count[0]++;
                        inside.decrementAndGet();
                    });
                }
            });
            submitters.add(th);
            th.start();
        }
        start.countDown();
        for (Thread th : submitters) {
            th.join();
        }
        CountDownLatch done = new CountDownLatch(1);
        int[] seen = new int[1];
        executor.execute(() -> {
            seen[0] = count[0];
            done.countDown();
        });
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(overlaps.get()).isZero();
        assertThat(seen[0]).isEqualTo(threads * perThread);
    }

    @Test
    void aDelayedTaskRunsLaterAndACancelledOneNever() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        AtomicInteger cancelledRuns = new AtomicInteger();
        executor.schedule(cancelledRuns::incrementAndGet, 20).cancel();
        executor.schedule(ran::countDown, 30);
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelledRuns.get()).isZero();
    }

    @Test
    void aFailingTaskDoesNotStopTheOthers() {
        List<String> ran = new ArrayList<>();
        executor.execute(() -> {
            executor.execute(() -> ran.add("after"));
            throw new IllegalStateException("boom");
        });
        assertThat(ran).containsExactly("after");
    }

    @Test
    void afterShutdownTasksAreRefused() {
        executor.shutdown(100);
        assertThatThrownBy(() -> executor.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> executor.schedule(() -> { }, 1)).isInstanceOf(RejectedExecutionException.class);
    }
}
