package io.bladegc.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.benchmarks.cluster.ClusterObserver;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.testkit.ChildProcess;
import io.bladegc.testkit.CoordinatorProcess;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * For integration tests: the built coordinator jar (generic mode, no load balancer) and DemoServer backends running
 * the built agent in coordinated mode, each in its own JVM, with the coordinator's HTTP API at hand and signals sent
 * to the children's own pids. {@link #close()} continues what was stopped and ends every child, in reverse order.
 * Not thread-safe: one test owns it.
 */
final class CoordinatedCluster implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<AutoCloseable> started = new ArrayList<>();
    private final List<Long> stopped = new ArrayList<>();
    private final Path logs;
    private final int port;
    private final URI coordinator;
    private CoordinatorProcess coordinatorProcess;

    /** @param logs where the children's output goes */
    CoordinatedCluster(Path logs) throws IOException {
        this.logs = logs;
        Files.createDirectories(logs);
        this.port = FreePorts.one();
        this.coordinator = URI.create("http://127.0.0.1:" + port);
    }

    HttpClient http() {
        return http;
    }

    /** Starts a coordinator on this cluster's port (again, after a kill) with {@code flags}; waits for /health. */
    ChildProcess startCoordinator(String name, String... flags) throws Exception {
        return startCoordinatorOn(port, name, flags);
    }

    /** Starts a coordinator (a replica of a replicated one) on {@code httpPort} with {@code flags}; waits for /health. */
    ChildProcess startCoordinatorOn(int httpPort, String name, String... flags) throws Exception {
        CoordinatorProcess c = CoordinatorProcess.start(name, Path.of(java()), CoordinatorProcess.SIDECAR_JVM_OPTIONS,
            Path.of(DemoProcess.requiredProperty("bladegc.coordinator.jar")), httpPort, List.of(flags),
            logs.resolve(name + ".log"));
        started.add(c);
        if (httpPort == port) {
            coordinatorProcess = c;
        }
        return c.process();
    }

    /** @return an observer of the coordinator last started on this cluster's port, already polling */
    ClusterObserver observe(List<String> nodes) {
        return ClusterObserver.start(http, coordinatorProcess, nodes);
    }

    /**
     * Starts a DemoServer backend (Parallel, 128 MB heap, 32 MB young, 16 MB live set, 128 KB garbage per request)
     * with the agent in coordinated mode as {@code node}.
     *
     * @param agentOptions more agent options, e.g. {@code drainTimeout=3000ms}, or empty
     */
    DemoServerProcess startBackend(String node, String agentOptions) throws Exception {
        return startBackend(node, coordinator.toString(), agentOptions);
    }

    /**
     * As {@link #startBackend(String, String)}, with the agent's {@code coordinator} option given, e.g. the replicas
     * of a replicated coordinator joined by {@code |}.
     */
    DemoServerProcess startBackend(String node, String coordinators, String agentOptions) throws Exception {
        DemoServerProcess d = DemoServerProcess.start(node, Path.of(java()),
            DemoProcess.requiredProperty("bladegc.benchmarks.classpath"), List.of(
                "-javaagent:" + DemoProcess.requiredProperty("bladegc.agent.jar") + "=coordinator=" + coordinators
                    + ",nodeId=" + node + (agentOptions.isEmpty() ? "" : "," + agentOptions),
                "-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy", "-Xms128m", "-Xmx128m", "-Xmn32m",
                "-XX:ParallelGCThreads=1", "-XX:CICompilerCount=2",
                "-Djava.util.logging.SimpleFormatter.format=%4$s %5$s%6$s%n"),
            List.of("--port", "0", "--live-mb", "16", "--garbage-kb", "128", "--churn-kb", "8", "--blade", "on",
                "--threads", "16"),
            logs.resolve(node + ".out"), logs.resolve(node + ".log"));
        started.add(d);
        return d;
    }

    /** @return the coordinator's address, for the agent's {@code coordinator} option */
    URI coordinator() {
        return coordinator;
    }

    /** Has {@link #close()} stop {@code child} too, before what was started earlier. */
    <T extends AutoCloseable> T own(T child) {
        started.add(child);
        return child;
    }

    /** Waits for {@code members} members and the end of the coordinator's start-up hold (one lease). */
    void awaitGranting(int members) throws Exception {
        await(() -> {
            JsonNode c = cluster();
            return c.path("members").size() >= members && c.path("now").asLong() >= c.path("grantsFrom").asLong();
        }, members + " members and the coordinator granting");
    }

    JsonNode cluster() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(coordinator.resolve("/v1/cluster"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** @return the coordinator's recent events of {@code type}, oldest first */
    List<JsonNode> events(String type) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : cluster().path("recentEvents")) {
            if (e.path("type").asText().equals(type)) {
                out.add(e);
            }
        }
        return out;
    }

    long grantsAfter(String node, long since) throws Exception {
        return events("GRANTED").stream()
            .filter(e -> e.path("node").asText().equals(node) && e.path("at").asLong() > since).count();
    }

    /** @return the coordinator's clock */
    long now() throws Exception {
        return cluster().path("now").asLong();
    }

    /** A node call as the test's own node {@code node}: with a member key made from its id (no agent's key). */
    HttpResponse<String> post(String node, String op, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(coordinator.resolve("/v1/nodes/" + node + "/" + op))
            .header("Blade-Member-Key", "test-member-key-" + node).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    JsonNode json(HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body());
    }

    /** Sends {@code kill -<signal>} to {@code pid}; a SIGSTOPped pid is continued again by {@link #close()}. */
    void signal(long pid, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -%s %d", signal, pid).isZero();
        if (signal.equals("STOP")) {
            stopped.add(pid);
        } else {
            stopped.remove(pid);
        }
    }

    /** Polls {@code check} every 20 ms for up to {@link #WAIT}; an exception counts as "not yet". */
    static void await(ChildProcess.Check check, String what) throws Exception {
        await(check, what, WAIT);
    }

    /** Polls {@code check} every 20 ms for up to {@code wait}; an exception counts as "not yet". */
    static void await(ChildProcess.Check check, String what, Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!holds(check)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + wait.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** @return what {@code file} holds from byte {@code offset} on */
    static String since(Path file, long offset) throws IOException {
        byte[] all = Files.readAllBytes(file);
        int from = (int) Math.min(offset, all.length);
        return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws Exception {
        for (long pid : List.copyOf(stopped)) {
            signal(pid, "CONT"); // a stopped child cannot act on SIGTERM
        }
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }

    private static boolean holds(ChildProcess.Check check) {
        try {
            return check.ok();
        } catch (Exception e) {
            return false;
        }
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
