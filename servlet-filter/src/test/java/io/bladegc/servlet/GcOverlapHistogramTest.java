package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class GcOverlapHistogramTest {
    private static final long MS = 1_000_000L;

    @Test
    void bucketsArePowersOfTwoOfMicroseconds() {
        assertThat(GcOverlapHistogram.bucket(0)).isZero();
        assertThat(GcOverlapHistogram.bucket(1_999)).isZero();
        assertThat(GcOverlapHistogram.bucket(2_000)).isEqualTo(1);
        assertThat(GcOverlapHistogram.bucket(3_999)).isEqualTo(1);
        assertThat(GcOverlapHistogram.bucket(4_000)).isEqualTo(2);
        assertThat(GcOverlapHistogram.bucket(1_024_000)).isEqualTo(10);
        assertThat(GcOverlapHistogram.bucket(Long.MAX_VALUE)).isEqualTo(GcOverlapHistogram.BUCKETS - 1);
        for (int i = 0; i < GcOverlapHistogram.BUCKETS; i++) {
            assertThat(GcOverlapHistogram.bucket(GcOverlapHistogram.lowerBoundNanos(i))).isEqualTo(i);
        }
    }

    @Test
    void answersWhatShareOfSlowRequestsHadGcOverlap() {
        GcOverlapHistogram h = new GcOverlapHistogram();
        for (int i = 0; i < 90; i++) {
            h.record(MS, 0); // fast, no GC
        }
        h.record(2 * MS, 5 * MS / 10); // fast, small GC overlap
        for (int i = 0; i < 6; i++) {
            h.record(200 * MS, 150 * MS); // slow because of a pause
        }
        for (int i = 0; i < 3; i++) {
            h.record(300 * MS, 0); // slow for other reasons
        }

        GcOverlapSnapshot s = h.snapshot();
        assertThat(s.requests()).isEqualTo(100);
        assertThat(s.requestsWithGcOverlap()).isEqualTo(7);
        assertThat(s.totalGcOverlap()).isEqualTo(Duration.ofNanos(6 * 150 * MS + 5 * MS / 10));
        assertThat(s.requestsSlowerThan(Duration.ofMillis(100))).isEqualTo(9);
        assertThat(s.requestsWithGcOverlapSlowerThan(Duration.ofMillis(100))).isEqualTo(6);
        assertThat(s.gcOverlapShare(Duration.ofMillis(100))).isEqualTo(6.0 / 9);
        assertThat(s.gcOverlapShare(Duration.ZERO)).isEqualTo(0.07);
        assertThat(s.gcOverlapShare(Duration.ofHours(2))).as("nobody that slow").isZero();
        assertThat(s.gcOverlapShare(Duration.ofMillis(-1))).isEqualTo(0.07);
    }

    @Test
    void overlapSizesHaveTheirOwnDistribution() {
        GcOverlapHistogram h = new GcOverlapHistogram();
        h.record(50 * MS, 3 * MS);
        h.record(50 * MS, 20 * MS);
        h.record(50 * MS, 0);
        GcOverlapSnapshot s = h.snapshot();
        int durationBucket = GcOverlapHistogram.bucket(50 * MS);
        assertThat(s.requestsIn(durationBucket)).isEqualTo(3);
        assertThat(s.requestsWithGcOverlapIn(durationBucket)).isEqualTo(2);
        assertThat(s.overlapsIn(GcOverlapHistogram.bucket(3 * MS))).isEqualTo(1);
        assertThat(s.overlapsIn(GcOverlapHistogram.bucket(20 * MS))).isEqualTo(1);
        assertThat(s.bucketLowerBound(durationBucket)).isEqualTo(Duration.ofNanos(32_768_000));
        assertThatThrownBy(() -> s.requestsIn(GcOverlapHistogram.BUCKETS)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void negativeOverlapCountsAsNone() {
        GcOverlapHistogram h = new GcOverlapHistogram();
        h.record(MS, -5);
        assertThat(h.snapshot().requestsWithGcOverlap()).isZero();
        assertThat(h.snapshot().requests()).isEqualTo(1);
    }

    @Test
    void sinkHearsOnlyPositiveOverlaps() {
        GcOverlapHistogram h = new GcOverlapHistogram();
        List<Long> heard = new ArrayList<>();
        h.overlapSink(heard::add);
        h.record(MS, 0);
        h.record(MS, 7);
        h.overlapSink(null);
        h.record(MS, 9);
        assertThat(heard).containsExactly(7L);
    }

    @Test
    void concurrentRecordsAreAllCounted() throws Exception {
        GcOverlapHistogram h = new GcOverlapHistogram();
        int threads = 4;
        int perThread = 50_000;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                TestServlets.await(go);
                for (int i = 0; i < perThread; i++) {
                    h.record(i * 1_000L, i % 10 == 0 ? 1_000 : 0);
                }
            });
            thread.start();
            started.add(thread);
        }
        go.countDown();
        for (Thread thread : started) {
            thread.join();
        }
        GcOverlapSnapshot s = h.snapshot();
        assertThat(s.requests()).isEqualTo((long) threads * perThread);
        assertThat(s.requestsWithGcOverlap()).isEqualTo((long) threads * perThread / 10);
    }
}
