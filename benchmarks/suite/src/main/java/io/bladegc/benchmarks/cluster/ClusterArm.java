package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.load.LoadProgress;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One arm of the cluster demo: open-loop load on HAProxy's frontend ({@code /work}) against a started
 * {@link Cluster}. When the measured window starts it records each backend's {@code /stats} and resets its GC
 * record, and HAProxy's counters; when the load ends it records them again, and with Blade it watches the
 * coordinator throughout ({@link ClusterObserver}). Stateless; {@link #run} blocks for the whole arm.
 */
public final class ClusterArm {
    /** How long the measured-window hook may take before the load's end gives up waiting for it. */
    private static final long START_SNAPSHOT_TIMEOUT_S = 60;
    /**
     * The client's requests (connections) in flight, shared by every backend behind HAProxy: 64, so one stalled backend
     * can hold most of them. Two ways to bound them per backend failed here (2026-11-29): HAProxy 2.6.12 with
     * {@code maxconn 16} per server left 256 requests in its backend queue beside three idle servers for minutes after
     * the coordinator's drains, and 2,048 in flight made HAProxy open a connection to a stalled backend per request
     * sent meanwhile, overflowing the backends' accept queues (11,000 listen drops in a few windows at 70 % of G1's
     * saturation: G1 alone at 2.8 s p99.9, against 0.1-0.4 s with 64).
     */
    public static final int IN_FLIGHT = 64;
    private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

    /**
     * What one arm measured.
     *
     * @param title         the column heading
     * @param load          the client's view
     * @param nodes         per backend ({@code n1} first): {@code /stats} when the window started (before the
     *                      reset) and when it ended
     * @param haproxyStart  HAProxy's {@link Haproxy#stats()} when the window started
     * @param haproxyEnd    the same at the end
     * @param observer      the coordinator watch, or {@code null} without Blade
     * @param loadAverage   the machine's 1-minute load average when the window started and when it ended
     *                      ({@code -1} where the platform has none): how busy the cores were, with anything else
     *                      that ran beside the demo
     * @param windowStart   when the measured window started, milliseconds since the epoch (as the backends' GC
     *                      events and the coordinator's stamp theirs)
     */
    public record Result(String title, LoadResult load, List<NodeWindow> nodes, Map<String, Map<String, Long>>
        haproxyStart, Map<String, Map<String, Long>> haproxyEnd, ClusterObserver observer, double[] loadAverage,
        long windowStart) {
    }

    /**
     * @param node  the node id
     * @param start {@code /stats} at the window's start, before the reset
     * @param end   {@code /stats} at the end: {@code gcPauses} then cover the measured window only
     */
    public record NodeWindow(String node, JsonNode start, JsonNode end) {
        /** @return how much Blade's counter {@code name} (e.g. {@code Forced}) grew in the window; 0 without Blade */
        public long counterDelta(String name) {
            return counterDelta("node", name);
        }

        /**
         * @param mbean the section of {@code /stats}: {@code node} or {@code coordination}
         * @return how much that MBean's counter {@code name} grew in the window; 0 where it is not published
         */
        public long counterDelta(String mbean, String name) {
            return end.path(mbean).path(name).asLong() - start.path(mbean).path(name).asLong();
        }
    }

    private ClusterArm() {
    }

    /**
     * @param title   the column heading
     * @param cluster the running cluster
     * @param rate    requests per second through HAProxy
     * @param warmup  load before the measured window
     * @param measure the measured window
     * @param http    a client for the control requests (not the load's)
     * @return what the arm measured
     */
    public static Result run(String title, Cluster cluster, double rate, Duration warmup, Duration measure,
                             HttpClient http) throws Exception {
        return run(title, cluster, rate, warmup, measure, http, null, null, null);
    }

    /**
     * {@link #run(String, Cluster, double, Duration, Duration, HttpClient)} with an interval log and a hook of the
     * caller's at the measured window's start.
     *
     * @param intervalLog    where the load writes its HdrHistogram interval log of the measured 2xx latencies, or
     *                       {@code null} for none
     * @param onMeasureStart run when the measured window starts, before the backends' snapshots (e.g. to read their
     *                       CPU time), or {@code null}; an exception it throws fails the arm
     * @param progress       told how far the load has come every {@link OpenLoopLoad#PROGRESS_PERIOD}, or
     *                       {@code null}
     * @return what the arm measured
     */
    public static Result run(String title, Cluster cluster, double rate, Duration warmup, Duration measure,
                             HttpClient http, Path intervalLog, Runnable onMeasureStart,
                             Consumer<LoadProgress> progress) throws Exception {
        List<DemoServerProcess> backends = cluster.backends();
        JsonNode[] starts = new JsonNode[backends.size()];
        List<Map<String, Map<String, Long>>> haproxyStart = new ArrayList<>();
        CountDownLatch snapshotTaken = new CountDownLatch(1);
        double[] loadAverage = new double[2];
        long[] windowStart = new long[1];
        // Once before the load, so the JSON and JMX code on both sides is loaded and warm, not in the measured window.
        cluster.haproxy().stats();
        for (DemoServerProcess b : backends) {
            b.stats(http);
        }
        ClusterObserver observer = cluster.coordinator().isPresent() ? ClusterObserver.start(http, cluster) : null;
        LoadResult load;
        try {
            load = OpenLoopLoad.builder(cluster.haproxy().frontend("/work"))
                .rate(rate).warmup(warmup).duration(measure).timeout(Duration.ofSeconds(10)).connections(IN_FLIGHT)
                .intervalLog(intervalLog)
                .progress(progress)
                .onMeasureStart(() -> {
                    windowStart[0] = System.currentTimeMillis();
                    try {
                        if (onMeasureStart != null) {
                            onMeasureStart.run();
                        }
                        loadAverage[0] = OS.getSystemLoadAverage();
                        haproxyStart.add(cluster.haproxy().stats());
                        for (int i = 0; i < backends.size(); i++) {
                            starts[i] = backends.get(i).stats(http);
                            backends.get(i).resetStats(http);
                        }
                    } catch (IOException | InterruptedException e) {
                        System.err.println("cluster demo: cannot read or reset a backend's /stats: " + e);
                    } finally {
                        snapshotTaken.countDown();
                    }
                })
                .build()
                .run();
            loadAverage[1] = OS.getSystemLoadAverage();
        } finally {
            if (observer != null) {
                observer.stop();
            }
        }
        if (!snapshotTaken.await(START_SNAPSHOT_TIMEOUT_S, TimeUnit.SECONDS) || haproxyStart.isEmpty()
            || Arrays.asList(starts).contains(null)) {
            throw new IllegalStateException("the measured window's start snapshot failed; see the messages above");
        }
        List<NodeWindow> nodes = new ArrayList<>();
        for (int i = 0; i < backends.size(); i++) {
            nodes.add(new NodeWindow(cluster.nodes().get(i), starts[i], backends.get(i).stats(http)));
        }
        return new Result(title, load, nodes, haproxyStart.get(0), cluster.haproxy().stats(), observer,
            loadAverage, windowStart[0]);
    }
}
