package io.bladegc.benchmarks.suite.single;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.benchmarks.demo.DemoTable;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BackendFlags;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.benchmarks.suite.harness.InterleavedSchedule;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.SuiteReport;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code collection-rate} scenario: does Blade make the JVM collect more often than it would on its own? One
 * DemoServer, no balancer, the README demo's heap ({@link #HEAP}: a fixed 128 MiB eden) and live set, at three
 * allocation rates ({@link #LOADS}: 50 MB/s, 500 MB/s, 2 GB/s, set by the garbage per request and the request rate),
 * Parallel alone and Parallel with Blade (filter and agent in single-node mode) one after the other at each rate.
 * Per run: the collections in the measured window (the server's GC notifications) per 1,000 requests served (2xx),
 * young and full, and Blade's forced and escaped ones. The goal (issue 16): Blade's collections per 1,000 requests at
 * most 1.10x Parallel's at every rate. Writes {@code table.md} and {@code logs/<rate>-<arm>-rep<N>/}. Stateless.
 */
public final class CollectionRateScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "collection-rate";
    /** The demo's heap ({@code benchmarks/demo.sh single}): 512 MiB, a 160 MiB young generation. */
    static final List<String> HEAP = List.of("-Xms512m", "-Xmx512m", "-Xmn160m");
    /** The demo's workload but for the garbage per request, which each {@link Load} sets. */
    static final List<String> WORKLOAD = List.of("--live-mb", "200", "--object-bytes", "8192", "--churn-kb", "4",
        "--threads", "32");
    /** The three allocation rates: requests per second times garbage per request. */
    static final List<Load> LOADS = List.of(new Load("50MBps", 1000, 50), new Load("500MBps", 1000, 500),
        new Load("2GBps", 2000, 1024));

    /** One allocation rate. */
    record Load(String name, double rate, int garbageKib) {
        double megabytesPerSecond() {
            return rate * garbageKib * 1024 / 1e6;
        }
    }

    /** One measured window: what the client got and what the server collected. */
    record Run(Load load, String arm, int rep, long served, long shed, long young, long full, long forced,
               long escaped, double p999Millis) {
        double perThousand() {
            return served == 0 ? Double.NaN : (young + full) * 1000.0 / served;
        }
    }

    private CollectionRateScenario() {
    }

    /**
     * Runs every load's arms, repetitions interleaved, and writes the results.
     *
     * @param o    the command line
     * @param stop holds each running server, for a shutdown during the run
     * @param http a client for the control requests
     * @return whether every repetition of every arm completed
     */
    public static boolean run(SuiteOptions o, StopOnExit stop, HttpClient http) throws Exception {
        String header = SuiteReport.header(NAME, o.quick(), o.command(), System.getProperty("java.version")
            + " (runs the load and every arm)");
        Path java = ClusterSpec.currentJava();
        List<String> flags = BackendFlags.of(BackendFlags.PARALLEL, HEAP);
        List<Arm> arms = List.of(
            new Arm("parallel", java, flags, BladeMode.NONE, "Parallel (fixed eden), filter off, no agent"),
            new Arm("blade", java, flags, BladeMode.GCI, "Parallel (fixed eden), filter on + agent, single-node"));
        List<Run> runs = new ArrayList<>();
        int failures = 0;
        for (Load load : LOADS) {
            for (InterleavedSchedule.Slot slot : InterleavedSchedule.of(arms, o.repetitions())) {
                String id = load.name() + "-" + slot.arm().name() + "-rep" + slot.rep();
                try {
                    runs.add(measure(o, stop, http, load, slot, id));
                } catch (Exception e) {
                    System.err.println("suite: " + id + " failed: " + e);
                    failures++;
                }
            }
        }
        SuiteReport.write(o.out(), header + '\n' + table(runs) + '\n' + SuiteReport.armLines(arms) + footer(o));
        return failures == 0;
    }

    private static Run measure(SuiteOptions o, StopOnExit stop, HttpClient http, Load load,
                               InterleavedSchedule.Slot slot, String id) throws Exception {
        Path logDir = o.out().resolve("logs").resolve(id);
        List<String> args = new ArrayList<>(List.of("--port", "0", "--garbage-kb", Integer.toString(load.garbageKib())));
        args.addAll(WORKLOAD);
        args.addAll(List.of("--blade", slot.arm().blade() == BladeMode.NONE ? "off" : "on"));
        System.err.printf(Locale.ROOT, "suite: %s: %.0f req/s x %d KiB, warm-up %d s, measured %d s%n", id,
            load.rate(), load.garbageKib(), o.warmup().toSeconds(), o.measure().toSeconds());
        try (DemoServerProcess server = stop.hold(DemoServerProcess.start(id, slot.arm().java(),
                System.getProperty("java.class.path"), slot.arm().serverFlags(o.agentJar(), logDir), args,
                logDir.resolve("server.out"), logDir.resolve("server.log")))) {
            server.stats(http);
            JsonNode[] start = new JsonNode[1];
            LoadResult result = OpenLoopLoad.builder(server.uri("/work"))
                .rate(load.rate()).warmup(o.warmup()).duration(o.measure()).timeout(Duration.ofSeconds(10))
                .onMeasureStart(() -> {
                    try {
                        start[0] = server.stats(http);
                        server.resetStats(http);
                    } catch (Exception e) {
                        System.err.println("suite: " + id + ": cannot reset the server's GC record: " + e);
                    }
                })
                .build()
                .run();
            if (start[0] == null) {
                throw new IllegalStateException("the measured window's start snapshot failed");
            }
            JsonNode end = server.stats(http);
            result.save(logDir.resolve("load.properties"));
            long young = 0;
            long full = 0;
            for (JsonNode e : end.path("gcPauses")) {
                if (DemoTable.isPause(e)) {
                    if (e.path("action").asText().contains("major")) {
                        full++;
                    } else {
                        young++;
                    }
                }
            }
            Run run = new Run(load, slot.arm().name(), slot.rep(), result.ok(), result.shed(), young, full,
                counter(start[0], end, "Forced"), counter(start[0], end, "Escaped"),
                result.okPercentileMicros(99.9) / 1000.0);
            System.err.printf(Locale.ROOT, "suite: %s: %d served, %d young + %d full: %.2f per 1,000%n", id,
                run.served(), young, full, run.perThousand());
            return run;
        } finally {
            stop.release();
        }
    }

    private static long counter(JsonNode start, JsonNode end, String name) {
        JsonNode n = end.path("node");
        return n.has(name) ? n.path(name).asLong() - start.path("node").path(name).asLong() : -1;
    }

    /** @return the markdown table: one row per rate and arm, repetitions added, and Blade's ratio per rate */
    static String table(List<Run> runs) {
        StringBuilder md = new StringBuilder("| allocation | arm | served | shed 503 | young | full | per 1,000 served"
            + " | Blade / alone | forced | escaped | p99.9 ms (worst rep) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Load load : LOADS) {
            double alone = Double.NaN;
            for (String arm : List.of("parallel", "blade")) {
                List<Run> rs = runs.stream().filter(r -> r.load().equals(load) && r.arm().equals(arm)).toList();
                if (rs.isEmpty()) {
                    continue;
                }
                long served = rs.stream().mapToLong(Run::served).sum();
                long young = rs.stream().mapToLong(Run::young).sum();
                long full = rs.stream().mapToLong(Run::full).sum();
                double per = served == 0 ? Double.NaN : (young + full) * 1000.0 / served;
                if (arm.equals("parallel")) {
                    alone = per;
                }
                md.append(String.format(Locale.ROOT, "| %.0f MB/s (%.0f req/s x %d KiB) | %s | %d | %d | %d | %d |"
                        + " %.2f | %s | %s | %s | %.1f |%n", load.megabytesPerSecond(), load.rate(), load.garbageKib(),
                    arm, served, rs.stream().mapToLong(Run::shed).sum(), young, full, per,
                    arm.equals("blade") ? String.format(Locale.ROOT, "%.2fx", per / alone) : "",
                    arm.equals("blade") ? Long.toString(rs.stream().mapToLong(Run::forced).sum()) : "-",
                    arm.equals("blade") ? Long.toString(rs.stream().mapToLong(Run::escaped).sum()) : "-",
                    rs.stream().mapToDouble(Run::p999Millis).max().orElse(Double.NaN)));
            }
        }
        return md.toString();
    }

    private static String footer(SuiteOptions o) {
        return String.format(Locale.ROOT, "%nOne DemoServer (`%s`, `--garbage-kb` per row), no balancer, open-loop"
            + " load straight to it; per rate, arm and repetition a fresh server, %s. Collections: the server's own GC notifications in the measured window"
            + " (young: Parallel's minor collections, full: its major ones, Blade's forced full collections"
            + " included). Per 1,000 served: per 2xx response; a shed request (503, nobody retries it here) does no"
            + " work and allocates next to nothing. Forced / escaped: Blade's counters over the window.%n",
            String.join(" ", WORKLOAD), o.schedule());
    }
}
