package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.testkit.ChildProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link io.bladegc.benchmarks.demo.DemoServer} in a child JVM: started with the given JVM flags and demo arguments,
 * ready once it printed {@code LISTENING <port>} (within 60 s), stopped by pid ({@link ChildProcess#close()}).
 * Thread-safe.
 */
public final class DemoServerProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("(?m)^LISTENING ([0-9]+)$");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SHED_RETRY_LIMIT = Duration.ofSeconds(30);

    private final ChildProcess child;
    private final int port;

    private DemoServerProcess(ChildProcess child, int port) {
        this.child = child;
        this.port = port;
    }

    /**
     * Starts the demo server and waits until it listens; stops it again when it does not.
     *
     * @param name      what it is, for messages
     * @param java      the {@code java} executable
     * @param classpath the benchmarks' classes and their runtime dependencies
     * @param jvmFlags  JVM flags, before the class name
     * @param demoArgs  DemoServer's arguments (see its usage)
     * @param stdout    where its standard output goes (it holds the {@code LISTENING} line)
     * @param stderr    where its standard error (the log) goes
     * @return the listening server
     */
    public static DemoServerProcess start(String name, Path java, String classpath, List<String> jvmFlags,
                                          List<String> demoArgs, Path stdout, Path stderr) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmFlags);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add("io.bladegc.benchmarks.demo.DemoServer");
        cmd.addAll(demoArgs);
        ChildProcess child = ChildProcess.start(name, cmd, stdout, stderr);
        try {
            child.awaitReady(() -> listeningPort(stdout).isPresent(), START_TIMEOUT, name + " to print LISTENING");
            return new DemoServerProcess(child, listeningPort(stdout).orElseThrow());
        } catch (Exception | Error e) {
            child.close();
            throw e;
        }
    }

    private static Optional<Integer> listeningPort(Path stdout) throws IOException {
        Matcher m = LISTENING.matcher(Files.readString(stdout));
        return m.find() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
    }

    /** @return {@code http://127.0.0.1:<port><path>} */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** @return the child process (pid, log files) */
    public ChildProcess process() {
        return child;
    }

    /**
     * {@code GET /stats}. The Blade filter covers {@code /stats} too, so a 503 (the node draining) is retried after
     * 100 ms, for at most 30 s.
     *
     * @return the parsed answer
     */
    public JsonNode stats(HttpClient http) throws IOException, InterruptedException {
        return JSON.readTree(call(http, HttpRequest.newBuilder(uri("/stats")).GET()));
    }

    /** {@code POST /stats/reset}: the server forgets the GC notifications it recorded (503s retried as for stats). */
    public void resetStats(HttpClient http) throws IOException, InterruptedException {
        call(http, HttpRequest.newBuilder(uri("/stats/reset")).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static String call(HttpClient http, HttpRequest.Builder request) throws IOException,
            InterruptedException {
        HttpRequest r = request.timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + SHED_RETRY_LIMIT.toNanos();
        while (true) {
            HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                return response.body();
            }
            if (response.statusCode() != 503 || System.nanoTime() > deadline) {
                throw new IOException(r.method() + " " + r.uri() + " answered " + response.statusCode());
            }
            Thread.sleep(100);
        }
    }

    /** Stops the server by its pid (SIGTERM, then SIGKILL after 10 s). */
    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
