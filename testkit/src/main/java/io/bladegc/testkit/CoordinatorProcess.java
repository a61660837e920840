package io.bladegc.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * The coordinator jar ({@code coordinator/target/blade-coordinator.jar}, given by path) in a child JVM listening on
 * 127.0.0.1 at a given port: {@code java <jvmOptions> -jar <jar> --port <port> <options>}, its output in one log file,
 * ready when {@code /health} answers 200 (within 30 s), stopped by its pid ({@link ChildProcess}). The variable
 * {@value #TOKEN_ENV} is removed from its environment: a token is given by option only, so an inherited one cannot
 * change the run. Thread-safe.
 */
public final class CoordinatorProcess implements AutoCloseable {
    /** JVM options for a coordinator run as a sidecar: a small heap, the Serial collector, C1 only. */
    public static final List<String> SIDECAR_JVM_OPTIONS =
        List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /** The coordinator's token variable, removed from the child's environment. */
    public static final String TOKEN_ENV = "BLADE_COORDINATOR_TOKEN";

    private static final Duration READY = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ChildProcess child;
    private final int port;
    private final URI uri;

    private CoordinatorProcess(ChildProcess child, int port) {
        this.child = child;
        this.port = port;
        this.uri = URI.create("http://127.0.0.1:" + port);
    }

    /**
     * Starts the coordinator and waits for its {@code /health}; stops it again if it does not get there.
     *
     * @param name       what it is, for messages, e.g. {@code coordinator} or a replica's id
     * @param java       the {@code java} executable
     * @param jvmOptions its JVM's options, e.g. {@link #SIDECAR_JVM_OPTIONS}
     * @param jar        the coordinator jar
     * @param port       the port it listens on (127.0.0.1)
     * @param options    further options, e.g. {@code --lease 5s}
     * @param log        where its standard output and error go
     * @return the coordinator, answering
     * @throws IllegalStateException when it exits or does not answer within 30 s (naming the log)
     */
    public static CoordinatorProcess start(String name, Path java, List<String> jvmOptions, Path jar, int port,
                                           List<String> options, Path log) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString(), "--port", Integer.toString(port)));
        command.addAll(options);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove(TOKEN_ENV);
        ChildProcess child = ChildProcess.start(name, builder, log, log);
        CoordinatorProcess c = new CoordinatorProcess(child, port);
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            HttpRequest health = HttpRequest.newBuilder(c.uri.resolve("/health")).timeout(Duration.ofSeconds(1))
                .build();
            child.awaitReady(() -> http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200,
                READY, name + "'s /health");
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

    /** @return the port it listens on */
    public int port() {
        return port;
    }

    /** @return the child process it runs in: its pid (for signals), its log, a wait that fails if it exits */
    public ChildProcess process() {
        return child;
    }

    /** @return {@code GET /v1/cluster}, parsed: {@code now}, {@code members}, {@code collecting}, ... */
    public JsonNode cluster(HttpClient http) throws IOException, InterruptedException {
        return JSON.readTree(http.send(HttpRequest.newBuilder(uri.resolve("/v1/cluster"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Waits up to 30 s until {@code n} nodes have joined. */
    public void awaitMembers(HttpClient http, int n) throws InterruptedException {
        child.awaitReady(() -> cluster(http).get("members").size() == n, READY, n + " members at the coordinator");
    }

    /** Stops the coordinator by its pid: SIGTERM, then SIGKILL after the grace period. */
    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
