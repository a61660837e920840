package io.bladegc.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.spring.it.AllocatingApp;
import io.bladegc.testkit.ChildProcess;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spring Boot service with the starter, run as a user runs it (a child JVM, Tomcat, the real agent jar), under
 * load that makes its JVM collect every few hundred milliseconds. With a malformed agent option Blade must stay off:
 * the agent says why, the starter's filter passes every request through and says so in one line, and no request is
 * ever answered 503. The same service without the agent is the control: its filter starts a node of its own (GCI
 * mode), which sheds requests while it collects, so the load is one where a running Blade would answer 503.
 */
class AgentOffIT {
    private static final Pattern LISTENING = Pattern.compile("(?m)^LISTENING (\\d+)$");
    private static final Duration LOAD = Duration.ofSeconds(6);
    private static final int CLIENTS = 4;

    @TempDir
    Path dir;

    @Test
    void aMalformedAgentOptionLeavesBladeOffWithOneLineAndNeverA503() throws Exception {
        Served control = serve("control", null);
        assertThat(control.collections()).as("collections under load, control run").isGreaterThanOrEqualTo(5);
        assertThat(control.statuses().getOrDefault(503, 0L)).as("a running Blade sheds under this load: %s", control)
            .isPositive();

        Served off = serve("agent-off", "drainTimout=1s");
        System.out.printf("AgentOffIT: control (no agent) %s, %d collections; malformed agent option %s, %d "
            + "collections%n", control.statuses(), control.collections(), off.statuses(), off.collections());
        assertThat(off.collections()).as("collections under load").isGreaterThanOrEqualTo(5);
        assertThat(off.statuses()).as("answers by status: %s", off).containsOnlyKeys(200);
        assertThat(off.lines("[blade] unknown option 'drainTimout'")).as("%s", off).hasSize(1);
        assertThat(off.lines("agent in this JVM is off")).as("the filter's one line: %s", off).singleElement()
            .asString().contains("'drainTimout'", "pass-through");
    }

    /** What one run of the service answered, and what it printed. */
    private record Served(Map<Integer, Long> statuses, long collections, String output) {
        List<String> lines(String part) {
            return output.lines().filter(l -> l.contains(part)).toList();
        }

        @Override
        public String toString() {
            return "statuses " + statuses + ", collections " + collections + "\n--- output\n" + output;
        }
    }

    private Served serve(String name, String agentArgs) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xms256m", "-Xmx256m", "-Xmn32m", "-XX:+UseParallelGC", "-XX:ParallelGCThreads=1"));
        if (agentArgs != null) {
            cmd.add("-javaagent:" + property("bladegc.agent.jar") + "=" + agentArgs);
        }
        cmd.addAll(List.of("-cp", classpath(), AllocatingApp.class.getName()));
        Path out = dir.resolve(name + ".out");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("BLADE_") || k.endsWith("JAVA_OPTIONS")
            || k.equals("JAVA_TOOL_OPTIONS"));
        try (ChildProcess p = ChildProcess.start(name, pb, out, out)) {
            int port = awaitPort(p, out);
            Map<Integer, Long> statuses = new ConcurrentHashMap<>();
            long collections = load(URI.create("http://127.0.0.1:" + port + "/work"), statuses);
            return new Served(Map.copyOf(statuses), collections, Files.readString(out));
        }
    }

    /** @return the collections the service counted while it was loaded */
    private static long load(URI work, Map<Integer, Long> statuses) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest request = HttpRequest.newBuilder(work).timeout(Duration.ofSeconds(10)).build();
        long before = firstCount(http, request);
        AtomicLong last = new AtomicLong(before);
        long end = System.nanoTime() + LOAD.toNanos();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                running.add(clients.submit(() -> {
                    while (System.nanoTime() < end) {
                        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                        statuses.merge(r.statusCode(), 1L, Long::sum);
                        if (r.statusCode() == 200) {
                            last.accumulateAndGet(Long.parseLong(r.body()), Math::max);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(LOAD.toSeconds() + 30, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        return last.get() - before;
    }

    /** @return the collection count before the load; a node of the filter's may shed this first request too */
    private static long firstCount(HttpClient http, HttpRequest request) throws Exception {
        for (int i = 0; i < 100; i++) {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                return Long.parseLong(r.body());
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the service never answered 200");
    }

    private static int awaitPort(ChildProcess p, Path out) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = LISTENING.matcher(Files.readString(out));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!p.isAlive()) {
                break;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the service did not start:\n" + Files.readString(out));
    }

    /** @return the test class path (this module's classes and its test dependencies), without the agent jar */
    private static String classpath() {
        String agent = Path.of(property("bladegc.agent.jar")).getFileName().toString();
        return Arrays.stream(property("bladegc.starter.test.classpath").split(File.pathSeparator))
            .filter(e -> !e.endsWith(agent)).collect(Collectors.joining(File.pathSeparator));
    }

    private static String property(String name) {
        String v = System.getProperty(name);
        assertThat(v).as("system property %s (set by the failsafe configuration)", name).isNotBlank();
        return v;
    }
}
