package io.bladegc.benchmarks.suite.http;

import io.bladegc.benchmarks.cluster.Cluster;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendUsage;
import io.bladegc.benchmarks.suite.harness.ConcurrentStalls;
import io.bladegc.benchmarks.suite.harness.RateSearch;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteTable;
import io.bladegc.benchmarks.suite.harness.WindowCost;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A {@link RateSearch} on one arm's cluster: starts {@link ClusterDemo#BACKENDS} backends behind HAProxy (a second
 * time on fresh ports when the first start failed for another reason than memory, e.g. a port taken meanwhile), then
 * runs successive windows of open-loop load on it (the first settles {@link SuiteOptions#warmup()}, the others
 * {@code settle}; then {@code window} measured), each window's rate chosen by the search. A window fails on the
 * search's latency target at {@code percentile} or on any client-visible error (503, other status, I/O error,
 * timeout, unfinished). A backend that did not start or exited ends the search; the outcome says why, with what its
 * output names (an {@code OutOfMemoryError} first). Each window's cost is kept ({@link #costs()}: the backends' CPU
 * time and peak memory, a concurrent collector's stalls). Writes {@code <id>-<rate>.hlog} per window and in
 * {@code logs/<id>/} the children's output and each window's {@code <rate>.load.properties}. Used by one thread.
 */
public final class ClusterRateSearch {
    private final SuiteOptions o;
    private final Arm arm;
    private final String id;
    private final List<String> workload;
    private final RateSearch search;
    private final double percentile;
    private final Duration settle;
    private final Duration window;
    private final HttpClient http;
    private final Path logDir;
    private final Map<Double, LoadResult> windows = new LinkedHashMap<>();
    private final List<WindowCost> costs = new ArrayList<>();
    private RateSearch.Result result;

    /**
     * What a search on a cluster came to.
     *
     * @param search  the rate search, empty when the cluster did not start
     * @param failure why the cluster did not start or the search ended early (first line of the reason), or empty
     */
    public record Outcome(Optional<RateSearch.Result> search, Optional<String> failure) {
    }

    /**
     * @param o          the command line (jars, HAProxy, results directory, warm-up)
     * @param arm        the arm whose cluster is searched
     * @param id         file-name safe name of this search (logs, interval logs, messages)
     * @param workload   DemoServer arguments of every backend
     * @param search     the search
     * @param percentile the latency percentile the search's target applies to, e.g. 99.9
     * @param settle     load before each window's measurement but the first
     * @param window     each measured window
     * @param http       a client for the control requests
     */
    public ClusterRateSearch(SuiteOptions o, Arm arm, String id, List<String> workload, RateSearch search,
                             double percentile, Duration settle, Duration window, HttpClient http) {
        this.o = o;
        this.arm = arm;
        this.id = id;
        this.workload = List.copyOf(workload);
        this.search = search;
        this.percentile = percentile;
        this.settle = settle;
        this.window = window;
        this.http = http;
        this.logDir = o.out().resolve("logs").resolve(id);
    }

    /** Starts the cluster, runs the search on it and stops the cluster. */
    public Outcome run(StopOnExit stop) throws IOException {
        ClusterSpec spec = arm.clusterSpec(ClusterDemo.BACKENDS, workload, System.getProperty("java.class.path"),
            o.haproxy(), new ClusterSpec.BladeParts(o.agentJar(), o.coordinatorJar(),
            ClusterDemo.COORDINATOR_ARGS), logDir);
        System.err.printf(Locale.ROOT, "suite: %s: %s; windows of %d s + %d s%n", id, spec.backendJvmFlags(),
            settle.toSeconds(), window.toSeconds());
        for (int attempt = 1; ; attempt++) {
            try (Cluster cluster = stop.hold(new Cluster())) {
                try {
                    cluster.start(spec, http);
                } catch (Exception e) {
                    String why = "did not start: " + firstLine(e) + backendsFailure().map(c -> "; " + c).orElse("");
                    if (attempt == 1 && !why.contains("OutOfMemoryError")) {
                        Path kept = logDir.resolveSibling(id + "-failed-start");
                        System.err.println("suite: " + id + ": " + why + "; starting once more (the first"
                            + " attempt's logs: " + kept + ")");
                        Files.move(logDir, kept);
                        continue;
                    }
                    System.err.println("suite: " + id + ": " + why + " (logs in " + logDir + ")");
                    return new Outcome(Optional.empty(), Optional.of(why));
                }
                result = search.run(rate -> probe(cluster, rate));
                Optional<String> why = result.aborted().map(a -> a + backendsFailure().map(c -> "; " + c)
                    .orElse(""));
                why.ifPresent(w -> System.err.println("suite: " + id + ": search ended: " + w));
                return new Outcome(Optional.of(result), why);
            } finally {
                stop.release();
            }
        }
    }

    /** @return the highest passing window: its rate and the client's result */
    public Optional<Map.Entry<Double, LoadResult>> best() {
        return Optional.ofNullable(result).flatMap(RateSearch.Result::passed)
            .map(p -> Map.entry(p.rate(), windows.get(p.rate())));
    }

    /** @return what each window measured and cost, in the order measured */
    public List<WindowCost> costs() {
        return List.copyOf(costs);
    }

    private RateSearch.Probe probe(Cluster cluster, double rate) throws Exception {
        requireAlive(cluster);
        String name = id + "-" + Math.round(rate);
        BackendUsage usage = BackendUsage.of(cluster);
        ClusterArm.Result r;
        BackendUsage.Window used;
        try {
            // the first window on a fresh cluster settles as long as the other scenarios warm up (JIT, the agent)
            r = ClusterArm.run(name, cluster, rate, windows.isEmpty() ? o.warmup() : settle, window, http,
                o.out().resolve(name + ".hlog"), usage::start, null);
            used = usage.finish();
        } catch (Exception e) {
            requireAlive(cluster); // a dead backend is the clearer reason
            throw e;
        }
        requireAlive(cluster);
        LoadResult load = r.load();
        load.save(logDir.resolve(Math.round(rate) + ".load.properties"));
        windows.put(rate, load);
        WindowCost cost = WindowCost.of(rate, load, used, stalls(cluster, used));
        costs.add(cost);
        RateSearch.Probe p = new RateSearch.Probe(rate, load.okPercentileMicros(percentile), cost.errors());
        System.err.printf(Locale.ROOT, "suite: %s: %.0f req/s: p%s %.2f ms, errors %d: %s; p99.9 %.2f ms, CPU %.2f s"
            + " per 1000 requests, peak RSS %d MiB%s%n", id, rate, SuiteTable.number(percentile),
            p.latencyMicros() / 1000.0, p.errors(), search.passes(p) ? "pass" : "miss", cost.p999Micros() / 1000.0,
            cost.cpuSecondsPerThousand(), cost.peakRssMib(),
            cost.stalls().map(st -> ", concurrent-collector stalls " + st.text()).orElse(""));
        return p;
    }

    /** @return the stalls the backends' GC logs show in the window when the arm runs a concurrent collector */
    private Optional<ConcurrentStalls> stalls(Cluster cluster, BackendUsage.Window used) throws IOException {
        if (!ConcurrentStalls.counts(arm.jvmFlags())) {
            return Optional.empty();
        }
        ConcurrentStalls sum = ConcurrentStalls.NONE;
        for (DemoServerProcess b : cluster.backends()) {
            sum = sum.plus(ConcurrentStalls.read(logDir, b.process().pid(), used.from(), used.to()));
        }
        return Optional.of(sum);
    }

    private static void requireAlive(Cluster cluster) {
        for (int i = 0; i < cluster.backends().size(); i++) {
            DemoServerProcess b = cluster.backends().get(i);
            if (!b.process().isAlive()) {
                throw new IllegalStateException("backend " + cluster.nodes().get(i) + " (pid "
                    + b.process().pid() + ") exited");
            }
        }
    }

    /** @return what a backend's output says went wrong ({@link #failureIn}), an out-of-memory first */
    private Optional<String> backendsFailure() {
        if (!Files.isDirectory(logDir)) {
            return Optional.empty();
        }
        Optional<String> found = Optional.empty();
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().matches("n[0-9]+\\.(out|log)"))
                    .sorted().toList()) {
                Optional<String> failure = failureIn(Files.readString(f)).map(c -> f.getFileName() + ": " + c);
                if (failure.isPresent() && failure.get().contains("OutOfMemoryError")) {
                    return failure;
                }
                found = found.or(() -> failure);
            }
        } catch (IOException e) {
            return Optional.of("cannot read the backends' output: " + e.getMessage());
        }
        return found;
    }

    private static String firstLine(Exception e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /**
     * @param output a JVM's standard output or error
     * @return the line naming an {@code OutOfMemoryError} if there is one, else the root cause of the last stack
     *     trace (its last {@code Caused by:}) or its first exception line; empty when there is none
     */
    public static Optional<String> failureIn(String output) {
        List<String> lines = output.lines().map(String::trim).toList();
        Optional<String> oom = lines.stream().filter(l -> l.contains("OutOfMemoryError")).findFirst();
        if (oom.isPresent()) {
            return oom;
        }
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith("Caused by: ")) {
                return Optional.of(lines.get(i).substring("Caused by: ".length()));
            }
        }
        return lines.stream().filter(l -> l.matches("(Exception in thread .*|[\\w.$]+(Exception|Error)(: .*)?)"))
            .findFirst();
    }
}
