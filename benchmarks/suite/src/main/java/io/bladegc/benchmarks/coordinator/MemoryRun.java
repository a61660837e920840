package io.bladegc.benchmarks.coordinator;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory per registered node: heap used after a full GC before and after joining {@code nodes} nodes (ids
 * {@code node-000000}..) over 4 connections; also how long the joins took.
 */
final class MemoryRun {
    private static final int THREADS = 4;

    private MemoryRun() {
    }

    static void run(BenchedCoordinator server, int nodes) throws Exception {
        // Warm the code paths with a few joins of a node that is not counted, then measure from a full GC.
        try (NodeConnection c = new NodeConnection(server.port(), "warm")) {
            for (int i = 0; i < 2000; i++) {
                c.post("join", "");
            }
            c.post("leave", "");
        }
        long before = server.heapUsedAfterFullGc();
        Thread[] ts = new Thread[THREADS];
        AtomicLong refused = new AtomicLong();
        long t0 = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            int idx = t;
            ts[t] = new Thread(() -> {
                try (NodeConnection c = new NodeConnection(server.port(), "unused")) {
                    for (int i = idx; i < nodes; i += THREADS) {
                        int status = c.postNode("node-" + String.format("%06d", i), "join", "");
                        if (status != 200) {
                            refused.incrementAndGet();
                        }
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        double joinSecs = (System.nanoTime() - t0) / 1e9;
        long after = server.heapUsedAfterFullGc();
        String health = server.get("/health");
        System.out.printf("%nmemory: joined %,d nodes (ids node-000000..) in %.1f s (%,.0f joins/s), %d refused%n",
                nodes, joinSecs, nodes / joinSecs, refused.get());
        System.out.printf("heap used after full GC: before %,d KiB, after %,d KiB: %,d bytes per node%n",
                before / 1024, after / 1024, (after - before) / Math.max(1, nodes - refused.get()));
        System.out.println("health after: " + health);
    }
}
