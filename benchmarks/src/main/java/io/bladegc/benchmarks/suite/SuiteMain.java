package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.cluster.Cluster;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterDemo;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.benchmarks.report.LatencyPlot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The benchmark suite's runner for one scenario: every arm of it, repetitions interleaved
 * ({@link InterleavedSchedule}), each arm on a fresh {@link Cluster} stopped by pid when it ends (also on failure
 * and on SIGTERM or Ctrl-C). Writes into {@code --out}: {@code table.md} (header, {@link SuiteTable}, notes),
 * {@code latency.png} ({@link LatencyPlot}, one line per arm over all repetitions), per arm and repetition
 * {@code <arm>-rep<N>.hlog} (the client's interval log) and in {@code logs/<arm>-rep<N>/} the children's output, GC
 * logs and {@code load.properties} (the client's whole result). An arm that fails is reported and the suite goes on.
 * The load generator runs in this JVM; give it a young generation large enough not to collect during a run.
 *
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) io.bladegc.benchmarks.suite.SuiteMain \
 *     http-cluster [--quick] --agent-jar JAR --coordinator-jar JAR --out DIR [--haproxy haproxy] ...
 * </pre>
 * Exit status: 0 when every arm completed every repetition, 1 when some failed, 2 on a bad command line or a
 * scenario not implemented yet.
 */
public final class SuiteMain {
    private SuiteMain() {
    }

    public static void main(String[] args) throws Exception {
        SuiteOptions o;
        try {
            o = SuiteOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(SuiteOptions.USAGE);
            System.exit(2);
            return;
        }
        if (!o.scenario().equals(HttpClusterScenario.NAME)) {
            System.err.println("suite: scenario " + o.scenario() + ": not yet (only " + HttpClusterScenario.NAME
                + " is implemented)");
            System.exit(2);
            return;
        }
        System.exit(run(o) ? 0 : 1);
    }

    /** @return whether every repetition of every arm completed */
    private static boolean run(SuiteOptions o) throws Exception {
        Files.createDirectories(o.out());
        Optional<JavaInstallation> newer = JavaInstallation.find(o.jvmDir(), 21);
        String header = header(o, newer);
        List<String> notes = new ArrayList<>();
        List<Arm> arms = HttpClusterScenario.arms(ClusterSpec.currentJava(), newer, o.rate(),
            o.warmup().plus(o.measure()), notes);
        notes.forEach(n -> System.err.println("suite: " + n));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
        AtomicReference<Cluster> running = new AtomicReference<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Cluster c = running.get();
            if (c != null) {
                c.close();
            }
        }, "suite-stop"));
        List<RepResult> results = new ArrayList<>();
        Map<String, Integer> failures = new HashMap<>();
        ClusterSpec.BladeJars jars = new ClusterSpec.BladeJars(o.agentJar(), o.coordinatorJar());
        for (InterleavedSchedule.Slot slot : InterleavedSchedule.of(arms, o.repetitions())) {
            String id = slot.arm().name() + "-rep" + slot.rep();
            Path logDir = o.out().resolve("logs").resolve(id);
            ClusterSpec spec = slot.arm().clusterSpec(ClusterDemo.BACKENDS, ClusterDemo.WORKLOAD,
                System.getProperty("java.class.path"), o.haproxy(), jars, logDir);
            System.err.printf(Locale.ROOT, "suite: %s: %s; %.0f req/s, warm-up %d s, measured %d s%n", id,
                spec.backendJvmFlags(), o.rate(), o.warmup().toSeconds(), o.measure().toSeconds());
            try (Cluster cluster = new Cluster()) {
                running.set(cluster);
                cluster.start(spec, http);
                results.add(runArm(slot, cluster, o, http));
            } catch (Exception e) {
                System.err.println("suite: " + id + " failed: " + e + " (logs in " + logDir + ")");
                failures.merge(slot.arm().name(), 1, Integer::sum);
            } finally {
                running.set(null);
            }
        }
        List<String> names = arms.stream().map(Arm::name).toList();
        Map<String, Histogram> lines = new LinkedHashMap<>();
        for (String name : names) {
            lines.put(name, SuiteTable.merged(results.stream().filter(r -> r.arm().equals(name)).toList()));
        }
        LatencyPlot.write(o.out().resolve("latency.png"), HttpClusterScenario.NAME + ": 2xx latency at the client, "
            + o.repetitions() + " repetition(s) merged", lines);
        StringBuilder md = new StringBuilder(header).append('\n').append(SuiteTable.markdown(names, results, failures))
            .append('\n');
        arms.forEach(a -> md.append("- `").append(a.name()).append("`: ").append(a.description()).append("; `")
            .append(String.join(" ", a.jvmFlags())).append("`\n"));
        notes.forEach(n -> md.append("- ").append(n).append('\n'));
        md.append(footer(o));
        Files.writeString(o.out().resolve("table.md"), md, StandardCharsets.UTF_8);
        System.out.print(md);
        return failures.isEmpty();
    }

    /** Runs one arm on its started cluster, reading the backends' CPU time around the measured window. */
    private static RepResult runArm(InterleavedSchedule.Slot slot, Cluster cluster, SuiteOptions o, HttpClient http)
            throws Exception {
        List<DemoServerProcess> backends = cluster.backends();
        ProcessUsage[] before = new ProcessUsage[backends.size()];
        String id = slot.arm().name() + "-rep" + slot.rep();
        ClusterArm.Result r = ClusterArm.run(slot.arm().name(), cluster, o.rate(), o.warmup(), o.measure(), http,
            o.out().resolve(id + ".hlog"), () -> {
                for (int i = 0; i < backends.size(); i++) {
                    try {
                        before[i] = ProcessUsage.of(backends.get(i).process().pid());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            });
        double cpu = 0;
        long peak = 0;
        for (int i = 0; i < backends.size(); i++) {
            ProcessUsage used = ProcessUsage.of(backends.get(i).process().pid()).since(before[i]);
            cpu += used.cpuSeconds();
            peak = Math.max(peak, used.peakRssKib());
        }
        r.load().save(o.out().resolve("logs").resolve(id).resolve("load.properties"));
        RepResult result = RepResult.of(slot.arm().name(), slot.rep(), r, cpu, peak);
        System.err.printf(Locale.ROOT, "suite: %s: p99.9 %.2f ms, max %.2f ms, 503s %d, retries %d, errors %d,"
            + " CPU %.1f s%n", id, result.ok().getValueAtPercentile(99.9) / 1000.0, result.ok().getMaxValue() / 1000.0,
            result.shed(), result.retries(), result.clientErrors(), cpu);
        return result;
    }

    private static String header(SuiteOptions o, Optional<JavaInstallation> newer) {
        return "# " + HttpClusterScenario.NAME + (o.quick() ? " (quick)" : "") + "\n\n"
            + "- command: `" + o.command() + "`\n"
            + "- started: " + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + "\n"
            + "- machine: " + Runtime.getRuntime().availableProcessors() + " cores (nproc), "
            + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "\n"
            + "- JDKs: " + System.getProperty("java.version") + " (default, runs the load and most arms)"
            + newer.map(j -> ", " + j.version() + " (" + j.java() + ", genzgc and shenandoah)").orElse("") + "\n"
            + String.format(Locale.ROOT, "- load average (1 min) at start: %.2f%n",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static String footer(SuiteOptions o) {
        return String.format(Locale.ROOT, "%n%d backends behind HAProxy (retry-on 503, redispatch), open-loop load"
            + " %.0f req/s from the intended send time; per arm and repetition a fresh cluster, %d s warm-up, %d s"
            + " measured; %d repetition(s), odd ones in the order above, even ones reversed. Latency rows: 2xx at the"
            + " client, all repetitions merged. Counts: all repetitions added. CPU: user + system of the three"
            + " backends in the measured window (/proc). Peak RSS: the largest backend's VmHWM. Raw:"
            + " `<arm>-rep<N>.hlog` (interval logs), `logs/<arm>-rep<N>/`.%n", ClusterDemo.BACKENDS, o.rate(),
            o.warmup().toSeconds(), o.measure().toSeconds(), o.repetitions());
    }
}
