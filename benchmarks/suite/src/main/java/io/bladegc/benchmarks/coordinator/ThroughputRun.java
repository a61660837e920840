package io.bladegc.benchmarks.coordinator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Sustained cycles per second: {@code connections} connections, one node each (joined first), each a closed loop of
 * acquire (granted at once) + release, for a fixed time after a warm-up. Besides the rate and the cycle's latency it
 * reports the CPU time the coordinator's JVM and this client JVM used per cycle while measuring (both share the
 * machine's CPUs), on Linux also how much CPU other processes took meanwhile (a run disturbed by other work shows
 * there), and the live members the coordinator counts after the measurement.
 */
final class ThroughputRun {
    private ThroughputRun() {
    }

    static void run(BenchedCoordinator server, int connections, int warmupSeconds, int seconds) throws Exception {
        AtomicBoolean measuring = new AtomicBoolean(false);
        AtomicBoolean stop = new AtomicBoolean(false);
        AtomicLong errors = new AtomicLong();
        long[] counts = new long[connections];
        Histogram[] hists = new Histogram[connections];
        CountDownLatch ready = new CountDownLatch(connections);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < connections; t++) {
            int idx = t;
            hists[t] = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            Thread th = new Thread(() -> {
                try (NodeConnection c = new NodeConnection(server.port(), "tp" + connections + "-" + idx)) {
                    c.post("join", "");
                    ready.countDown();
                    long gcId = 1;
                    long n = 0;
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        long epoch = c.acquire(gcId++);
                        c.release(epoch);
                        long t1 = System.nanoTime();
                        if (measuring.get()) {
                            n++;
                            hists[idx].recordValue(t1 - t0);
                        }
                    }
                    counts[idx] = n;
                } catch (IOException | RuntimeException e) {
                    errors.incrementAndGet();
                    System.err.println("connection " + idx + ": " + e);
                    ready.countDown();
                }
            }, "tp-" + t);
            threads.add(th);
            th.start();
        }
        ready.await();
        Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
        Duration serverCpu0 = server.cpuTime();
        Duration clientCpu0 = clientCpuTime();
        Duration machineBusy0 = machineBusyTime();
        measuring.set(true);
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        measuring.set(false);
        long elapsed = System.nanoTime() - start;
        Duration serverCpu = server.cpuTime().minus(serverCpu0);
        Duration clientCpu = clientCpuTime().minus(clientCpu0);
        Duration machineBusy = machineBusy0 == null ? null : machineBusyTime().minus(machineBusy0);
        stop.set(true);
        for (Thread th : threads) {
            th.join();
        }
        long total = 0;
        Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        for (int t = 0; t < connections; t++) {
            total += counts[t];
            all.add(hists[t]);
        }
        long cycles = Math.max(1, total);
        System.out.printf("throughput: %2d connections: %,.0f cycles/s (%,.0f requests/s) over %d s after %d s warm-up;"
                        + " cycle p50 %.0f µs, p99 %.0f µs, max %.0f µs; errors %d; CPU per cycle: coordinator %.1f µs,"
                        + " client %.1f µs; live members after: %,d%n",
                connections, total / (elapsed / 1e9), 2 * total / (elapsed / 1e9), seconds, warmupSeconds,
                all.getValueAtPercentile(50) / 1e3, all.getValueAtPercentile(99) / 1e3, all.getMaxValue() / 1e3,
                errors.get(), serverCpu.toNanos() / 1e3 / cycles, clientCpu.toNanos() / 1e3 / cycles,
                server.members());
        if (machineBusy != null) {
            double secs = elapsed / 1e9;
            System.out.printf("    CPUs busy while measuring: %.2f of %d (coordinator %.2f, client %.2f, other processes"
                            + " %.2f)%n", machineBusy.toNanos() / 1e9 / secs, Runtime.getRuntime().availableProcessors(),
                    serverCpu.toNanos() / 1e9 / secs, clientCpu.toNanos() / 1e9 / secs,
                    machineBusy.minus(serverCpu).minus(clientCpu).toNanos() / 1e9 / secs);
        }
    }

    /**
     * @return the time all CPUs spent busy since boot (the first line of {@code /proc/stat}: user, nice, system, irq
     *     and softirq, in USER_HZ = 1/100 s ticks), or {@code null} where there is no {@code /proc/stat}
     */
    private static Duration machineBusyTime() throws IOException {
        Path stat = Path.of("/proc/stat");
        if (!Files.isReadable(stat)) {
            return null;
        }
        String[] f = Files.readAllLines(stat).get(0).trim().split("\\s+"); // cpu user nice system idle iowait irq softirq
        long busy = 0;
        for (int i : new int[] {1, 2, 3, 6, 7}) {
            busy += Long.parseLong(f[i]);
        }
        return Duration.ofMillis(busy * 10);
    }

    private static Duration clientCpuTime() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow();
    }
}
