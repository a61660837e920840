package io.bladegc.benchmarks.suite.harness;

import io.bladegc.benchmarks.cluster.DemoServerProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Measures what a DemoServer workload keeps live in the heap: one server with a 1 GiB Parallel heap and no Blade,
 * {@code POST /gc} twice (Parallel's {@code System.gc()} is a full, compacting collection, so the heap in use after
 * it is what is reachable), then {@code heapUsedBytes} from {@code /stats}; the server is stopped by pid.
 * Stateless.
 */
public final class LiveFootprint {
    /** The measuring server's heap: room for any workload the suite runs, so the collection is not forced early. */
    static final List<String> HEAP = List.of("-Xms1g", "-Xmx1g");

    private LiveFootprint() {
    }

    /**
     * @param java     the {@code java} to run the server on
     * @param workload DemoServer arguments (live set, object size, ...), without {@code --port} and {@code --blade}
     * @param logDir   where the server's output and GC log go
     * @param stop     holds the server while it runs, for a shutdown meanwhile
     * @param http     a client for the requests
     * @return the heap in use after the collections, bytes
     * @throws IOException when the server does not start or answer, or {@code /stats} has no {@code heapUsedBytes}
     */
    public static long measure(Path java, List<String> workload, Path logDir, StopOnExit stop, HttpClient http)
            throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", "0"));
        args.addAll(workload);
        args.addAll(List.of("--blade", "off"));
        List<String> flags = new ArrayList<>(BackendFlags.of(BackendFlags.PARALLEL, HEAP));
        flags.add("-Xlog:gc*:file=" + logDir.toAbsolutePath().resolve("gc-%p.log"));
        try (DemoServerProcess server = stop.hold(DemoServerProcess.start("footprint", java,
                System.getProperty("java.class.path"), flags, args, logDir.resolve("server.out"),
                logDir.resolve("server.log")))) {
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(server.uri("/gc"))
                    .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() / 100 != 2) {
                    throw new IOException("POST " + server.uri("/gc") + " answered " + r.statusCode());
                }
            }
            long used = server.stats(http).path("heapUsedBytes").asLong(-1);
            if (used <= 0) {
                throw new IOException(server.uri("/stats") + " has no heapUsedBytes: is the build older than it?");
            }
            return used;
        } finally {
            stop.release();
        }
    }
}
