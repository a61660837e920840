package io.bladegc.benchmarks.docker;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.testkit.ChildProcess;
import io.bladegc.testkit.CoordinatorProcess;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every metric the Grafana dashboard queries appears in a real scrape: the built coordinator jar and a DemoServer
 * with the built agent attached and coordinated by it (the same flags as the Docker backend's, on a loopback port),
 * driven until the coordinator has granted and seen released at least one collection, plus one {@code POST /gc}
 * (an explicit collection); then both {@code GET /metrics} are scraped and the dashboard's metric names looked up in
 * them. The coordinator's {@code --haproxy} points at a loopback port where nothing listens, so its drain and ready
 * calls fail and {@code blade_coordinator_lb_errors_total} exists (a failed drain still grants). The backend's
 * {@code /metrics} is also checked to answer outside the gate: it is not counted in flight.
 */
class GrafanaDashboardScrapeIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void everyMetricTheDashboardQueriesIsInTheScrapeOfACoordinatorAndABackend() throws Exception {
        Path logs = Path.of("target", "grafana-scrape-it");
        int[] ports = FreePorts.take(2);
        int coordinatorPort = ports[0];
        int deadHaproxyPort = ports[1];
        URI coordinator = URI.create("http://127.0.0.1:" + coordinatorPort);
        List<AutoCloseable> started = new ArrayList<>();
        try {
            CoordinatorProcess coordinatorProcess = CoordinatorProcess.start("coordinator", Path.of(java()),
                CoordinatorProcess.SIDECAR_JVM_OPTIONS, Path.of(property("bladegc.coordinator.jar")), coordinatorPort,
                List.of("--lease", "2s", "--min-healthy", "0", "--haproxy", "127.0.0.1:" + deadHaproxyPort,
                    "--haproxy-servers", "n1=app/s1"), logs.resolve("coordinator.log"));
            started.add(coordinatorProcess);
            ChildProcess c = coordinatorProcess.process();

            DemoServerProcess backend = DemoServerProcess.start("backend", Path.of(java()),
                property("bladegc.benchmarks.classpath"), List.of(
                    "-javaagent:" + property("bladegc.agent.jar") + "=coordinator=" + coordinator + ",nodeId=n1",
                    "-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy", "-Xms96m", "-Xmx96m", "-Xmn32m",
                    "-XX:ParallelGCThreads=1", "-XX:CICompilerCount=2"),
                List.of("--port", "0", "--live-mb", "16", "--garbage-kb", "128", "--churn-kb", "8", "--blade", "on",
                    "--threads", "16", "--gc-overlap", "on"),
                logs.resolve("backend.out"), logs.resolve("backend.log"));
            started.add(backend);

            // requests until one collection was granted and released (the coordinator waits one lease first)
            c.awaitReady(() -> {
                for (int i = 0; i < 50; i++) {
                    get(backend.uri("/work"));
                }
                return sample(scrape(coordinator.resolve("/metrics")), "blade_coordinator_releases_total") >= 1;
            }, WAIT, "a collection granted and released");
            c.awaitReady(() -> post(backend.uri("/gc")).statusCode() == 204, WAIT, "POST /gc answered 204");

            Map<String, Double> samples = new LinkedHashMap<>(scrape(coordinator.resolve("/metrics")));
            Map<String, Double> backendSamples = scrape(backend.uri("/metrics"));
            samples.putAll(backendSamples);
            assertThat(backendSamples.get("blade_gate_inflight_requests"))
                .as("requests in flight while /metrics answered: it is not behind the gate").isEqualTo(0.0);
            assertThat(post(backend.uri("/metrics")).statusCode()).isEqualTo(405);

            Map<String, String> used = GrafanaDashboardTest.metricNames();
            Set<String> missing = new TreeSet<>(used.keySet());
            missing.removeAll(samples.keySet());
            StringBuilder where = new StringBuilder();
            missing.forEach(m -> where.append(String.format("%n  %s (in %s)", m, used.get(m))));
            assertThat(missing).as("metrics the dashboard queries that the coordinator and the backend do not"
                + " expose:%s%nscraped: %s", where, new TreeSet<>(samples.keySet())).isEmpty();
        } finally {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).close();
            }
        }
    }

    /**
     * @return the sample names of a Prometheus text exposition, each with the sum of its samples' values (over
     *     label sets)
     */
    private Map<String, Double> scrape(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> r = get(uri);
        assertThat(r.statusCode()).as("GET %s", uri).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
        Map<String, Double> out = new LinkedHashMap<>();
        for (String line : r.body().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            String value = line.substring(line.lastIndexOf(' ') + 1);
            out.merge(line.substring(0, end), Double.parseDouble(value), Double::sum);
        }
        return out;
    }

    private static double sample(Map<String, Double> samples, String name) {
        return samples.getOrDefault(name, 0.0);
    }

    private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertThat(value).as("system property %s (set by benchmarks/pom.xml for failsafe)", name).isNotBlank();
        return value;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
