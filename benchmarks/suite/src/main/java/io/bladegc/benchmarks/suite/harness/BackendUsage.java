package io.bladegc.benchmarks.suite.harness;

import io.bladegc.benchmarks.cluster.Cluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;

/**
 * What a cluster's backends used over one measured window: their CPU time added up and the largest peak resident
 * memory among them ({@link ProcessUsage}), with the window's wall-clock start and end. {@link #start()} at the
 * window's start (e.g. as {@code ClusterArm}'s hook), {@link #finish()} after it. Used by one thread.
 */
public final class BackendUsage {
    private final List<Long> pids;
    private final ProcessUsage[] before;
    private Instant started;

    /**
     * What the backends used in a window.
     *
     * @param from       when the window started
     * @param to         when {@link #finish()} read the usage
     * @param cpuSeconds CPU time of all backends in the window, GC threads included
     * @param peakRssKib the largest backend's peak resident memory since it started, KiB
     */
    public record Window(Instant from, Instant to, double cpuSeconds, long peakRssKib) {
    }

    /** @param pids the backends' process ids */
    public BackendUsage(List<Long> pids) {
        this.pids = List.copyOf(pids);
        this.before = new ProcessUsage[pids.size()];
    }

    /** @return the usage of {@code cluster}'s backends */
    public static BackendUsage of(Cluster cluster) {
        return new BackendUsage(cluster.backends().stream().map(b -> b.process().pid()).toList());
    }

    /**
     * Reads every backend's usage so far: the window starts now.
     *
     * @throws UncheckedIOException when a backend's {@code /proc} entry cannot be read (it exited)
     */
    public void start() {
        started = Instant.now();
        for (int i = 0; i < pids.size(); i++) {
            try {
                before[i] = ProcessUsage.of(pids.get(i));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * @return what the backends used since {@link #start()}
     * @throws IOException           when a backend's {@code /proc} entry cannot be read (it exited)
     * @throws IllegalStateException when the window never started
     */
    public Window finish() throws IOException {
        if (started == null) {
            throw new IllegalStateException("the window never started");
        }
        double cpu = 0;
        long peak = 0;
        for (int i = 0; i < pids.size(); i++) {
            ProcessUsage used = ProcessUsage.of(pids.get(i)).since(before[i]);
            cpu += used.cpuSeconds();
            peak = Math.max(peak, used.peakRssKib());
        }
        return new Window(started, Instant.now(), cpu, peak);
    }
}
