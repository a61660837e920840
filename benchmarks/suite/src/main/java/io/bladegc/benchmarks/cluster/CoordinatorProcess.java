package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.testkit.ChildProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The coordinator jar in a child JVM (small heap, Serial collector, C1 only: it is a sidecar), driving HAProxy's
 * runtime API: {@code --haproxy <socket> --haproxy-servers n1=app/s1,... --lease 5s}, K = 1 unless further options
 * say otherwise. Ready when {@code /health} answers 200 (within 30 s); stopped by pid. Thread-safe.
 */
public final class CoordinatorProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ChildProcess child;
    private final URI uri;

    private CoordinatorProcess(ChildProcess child, URI uri) {
        this.child = child;
        this.uri = uri;
    }

    /**
     * @param java    the {@code java} executable
     * @param jar     {@code coordinator/target/blade-coordinator.jar}
     * @param port    the port it listens on (127.0.0.1)
     * @param haproxy the load balancer it drives
     * @param nodes   node ids, the {@code i}-th mapped to HAProxy's server {@link Haproxy#server(int) s(i+1)}
     * @param slotArgs further options, e.g. {@code --k-due 2}
     * @param log     where its output goes
     * @param http    a client for the readiness check
     */
    public static CoordinatorProcess start(Path java, Path jar, int port, Haproxy haproxy, List<String> nodes,
                                           List<String> slotArgs, Path log, HttpClient http)
        throws IOException, InterruptedException {
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            servers.add(nodes.get(i) + "=" + Haproxy.BACKEND + "/" + Haproxy.server(i));
        }
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx64m",
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(), "--port", "" + port,
            "--haproxy", haproxy.adminSocket().toString(), "--haproxy-servers", String.join(",", servers),
            "--lease", "5s"));
        command.addAll(slotArgs);
        ChildProcess child = ChildProcess.start("coordinator", command, log, log);
        CoordinatorProcess c = new CoordinatorProcess(child, URI.create("http://127.0.0.1:" + port));
        try {
            HttpRequest health = HttpRequest.newBuilder(c.uri.resolve("/health")).timeout(Duration.ofSeconds(1))
                .build();
            child.awaitReady(() -> http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200,
                Duration.ofSeconds(30), "the coordinator's /health");
            return c;
        } catch (RuntimeException | InterruptedException e) {
            child.close();
            throw e;
        }
    }

    /** @return its base URI, {@code http://127.0.0.1:<port>} */
    public URI uri() {
        return uri;
    }

    /** @return {@code GET /v1/cluster}, parsed: {@code now}, {@code members}, {@code collecting}, ... */
    public JsonNode cluster(HttpClient http) throws IOException, InterruptedException {
        return JSON.readTree(http.send(HttpRequest.newBuilder(uri.resolve("/v1/cluster"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Waits up to 30 s until {@code n} nodes have joined. */
    public void awaitMembers(HttpClient http, int n) throws InterruptedException {
        child.awaitReady(() -> cluster(http).get("members").size() == n, Duration.ofSeconds(30),
            n + " members at the coordinator");
    }

    /** Stops the coordinator by its pid. */
    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
