package io.bladegc.benchmarks.coordinator;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The grant round trip: one client, one keep-alive connection, one node, a closed loop of acquire (granted at once:
 * the node holds no grant and K is large) + release; HdrHistogram of the acquire round trip and of the whole cycle.
 */
final class LatencyRun {
    private LatencyRun() {
    }

    static void run(BenchedCoordinator server, int warmup, int cycles) throws IOException {
        Histogram acquire = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        Histogram cycle = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        try (NodeConnection c = new NodeConnection(server.port(), "lat-1")) {
            c.post("join", "");
            long gcId = 1;
            for (int i = 0; i < warmup; i++) {
                long epoch = c.acquire(gcId++);
                c.release(epoch);
            }
            long start = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
                long t0 = System.nanoTime();
                long epoch = c.acquire(gcId++);
                long t1 = System.nanoTime();
                c.release(epoch);
                long t2 = System.nanoTime();
                acquire.recordValue(t1 - t0);
                cycle.recordValue(t2 - t0);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            System.out.printf("%nlatency: 1 connection, %d warm-up cycles, %d measured cycles in %.1f s%n",
                    warmup, cycles, secs);
            System.out.println("| | p50 (µs) | p90 (µs) | p99 (µs) | p99.9 (µs) | p99.99 (µs) | max (µs) |");
            System.out.println("|---|---|---|---|---|---|---|");
            row("acquire (granted) round trip", acquire);
            row("acquire + release cycle", cycle);
        }
    }

    private static void row(String name, Histogram h) {
        System.out.printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |%n", name,
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3, h.getValueAtPercentile(99.99) / 1e3, h.getMaxValue() / 1e3);
    }
}
