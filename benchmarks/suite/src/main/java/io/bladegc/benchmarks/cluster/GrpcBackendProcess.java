package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.benchmarks.grpc.GrpcBackend;
import io.bladegc.testkit.ChildProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link GrpcBackend} in a child JVM, ready once it printed {@code LISTENING <grpcPort> <statsPort>} (within 60 s),
 * stopped by pid ({@link ChildProcess#close()}). Thread-safe.
 */
public final class GrpcBackendProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("(?m)^LISTENING ([0-9]+) ([0-9]+)$");

    private final ChildProcess child;
    private final int grpcPort;
    private final URI stats;

    private GrpcBackendProcess(ChildProcess child, int grpcPort, int statsPort) {
        this.child = child;
        this.grpcPort = grpcPort;
        this.stats = URI.create("http://127.0.0.1:" + statsPort + "/stats");
    }

    /**
     * Starts the backend and waits until it listens; stops it again when it does not.
     *
     * @param node      the node's name, also its {@link GrpcBackend} argument
     * @param java      the {@code java} executable
     * @param classpath a classpath holding {@link GrpcBackend} and its runtime dependencies
     * @param jvmFlags  JVM flags (the agent's among them)
     * @param work      {@link GrpcBackend}'s arguments after the node's name: garbage per unary call in KiB,
     *                  {@code on} or {@code off} (its interceptor runs Blade, or is a pass-through), and optionally
     *                  a live set's MiB, churn per call in KiB and array size in bytes
     * @param logs      where {@code <node>.out} and {@code <node>.log} go
     * @return the listening backend
     */
    public static GrpcBackendProcess start(String node, Path java, String classpath, List<String> jvmFlags,
                                           List<String> work, Path logs) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        cmd.addAll(jvmFlags);
        cmd.addAll(List.of("-cp", classpath, GrpcBackend.class.getName(), node));
        cmd.addAll(work);
        Path out = logs.resolve(node + ".out");
        ChildProcess child = ChildProcess.start(node, cmd, out, logs.resolve(node + ".log"));
        try {
            child.awaitReady(() -> LISTENING.matcher(Files.readString(out)).find(), Duration.ofSeconds(60),
                node + " to print LISTENING");
            Matcher m = LISTENING.matcher(Files.readString(out));
            m.find();
            return new GrpcBackendProcess(child, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
        } catch (Exception | Error e) {
            child.close();
            throw e;
        }
    }

    /** @return where it serves gRPC */
    public InetSocketAddress grpcAddress() {
        return new InetSocketAddress("127.0.0.1", grpcPort);
    }

    /** {@code GET /stats} (not behind Blade: never shed). */
    public JsonNode stats(HttpClient http) throws IOException, InterruptedException {
        return JSON.readTree(send(http, HttpRequest.newBuilder(stats).GET()));
    }

    /** {@code POST /stats/reset}: forgets the GC notifications and the longest unary call. */
    public void resetStats(HttpClient http) throws IOException, InterruptedException {
        send(http, HttpRequest.newBuilder(URI.create(stats + "/reset")).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static String send(HttpClient http, HttpRequest.Builder request) throws IOException,
            InterruptedException {
        HttpResponse<String> r = http.send(request.timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IOException(r.request().uri() + " answered " + r.statusCode());
        }
        return r.body();
    }

    /** @return its process's id */
    public long pid() {
        return child.pid();
    }

    /** Stops it by pid: SIGTERM, then SIGKILL after the grace period. */
    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
