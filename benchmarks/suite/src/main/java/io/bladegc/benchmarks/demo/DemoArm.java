package io.bladegc.benchmarks.demo;

import io.bladegc.benchmarks.load.LoadOptions;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One arm of the demo: open-loop load against a running {@link DemoServer}, with the server's GC record reset when
 * the measured window starts and fetched when it ends. Writes {@code <out>.load.properties} (see
 * {@link LoadResult#save}), {@code <out>.stats.json} (the server's {@code /stats} at the end) and
 * {@code <out>.stats-start.json} (the same just before the reset); {@link DemoTable} prints them.
 *
 * <pre>
 * DemoArm --base http://127.0.0.1:PORT --rate 1000 --duration 30s --warmup 10s --out target/demo/g1
 * </pre>
 */
public final class DemoArm {
    private DemoArm() {
    }

    /** The command line. */
    @Command(name = "DemoArm", description = "One arm of the demo: open-loop load against a running DemoServer;"
        + " writes <out>.load.properties, <out>.stats.json and <out>.stats-start.json for DemoTable.")
    static final class Settings implements ToolCommand<Settings> {
        @Option(names = "--base", paramLabel = "http://HOST:PORT", required = true, description = "the DemoServer")
        String base;

        @Option(names = "--out", paramLabel = "PATH_PREFIX", required = true, description = "where the files go")
        Path out;

        @Mixin
        LoadOptions load;

        @Override
        public Settings options() {
            return this;
        }
    }

    public static void main(String[] args) throws Exception {
        Settings o = ToolCommandLine.parseOrExit(new Settings(), args);
        String base = o.base.endsWith("/") ? o.base.substring(0, o.base.length() - 1) : o.base;
        Path out = o.out;
        HttpClient control = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
        URI reset = URI.create(base + "/stats/reset");
        URI stats = URI.create(base + "/stats");
        String resetBase = base;
        Path parent = out.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path startStats = Path.of(out + ".stats-start.json");
        Files.deleteIfExists(startStats);
        OpenLoopLoad load = o.load.applyTo(OpenLoopLoad.builder(URI.create(base + "/work")))
            .onMeasureStart(() -> {
                try {
                    // The node's counters run from its start: keep them as they are now, to show the window's share.
                    Files.writeString(startStats, call(control, HttpRequest.newBuilder(stats).GET()),
                        StandardCharsets.UTF_8);
                    call(control, HttpRequest.newBuilder(reset).POST(HttpRequest.BodyPublishers.noBody()));
                } catch (IOException | InterruptedException e) {
                    System.err.println("demo: could not reset " + resetBase + "/stats: " + e);
                }
            })
            .build();
        // Once before the load, so the server's JSON and JMX code is loaded and warm, not in the measured window.
        call(control, HttpRequest.newBuilder(stats).GET());
        System.err.printf("demo: %s/work at %.0f/s, warm-up %d s, measuring %d s%n", base, o.load.rate(),
            o.load.warmup().toSeconds(), o.load.duration().toSeconds());
        LoadResult result = load.run();
        String json = call(control, HttpRequest.newBuilder(stats).GET());
        result.save(Path.of(out + ".load.properties"));
        Files.writeString(Path.of(out + ".stats.json"), json, StandardCharsets.UTF_8);
        System.out.print(result);
        System.out.print(result.timeline());
    }

    /**
     * Sends a control request. The Blade filter covers every path, so a control request can be shed too: a 503 is
     * retried after its Retry-After (at least 100 ms, at most 2 s) for up to 30 s.
     */
    private static String call(HttpClient client, HttpRequest.Builder request) throws IOException,
            InterruptedException {
        HttpRequest r = request.timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (int attempt = 1; ; attempt++) {
            HttpResponse<String> response = client.send(r, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                return response.body();
            }
            if (response.statusCode() != 503 || System.nanoTime() > deadline) {
                throw new IOException(r.method() + " " + r.uri() + " answered " + response.statusCode() + " (attempt "
                    + attempt + ")");
            }
            long waitMs = response.headers().firstValue("Retry-After").map(v -> {
                try {
                    return Long.parseLong(v.trim()) * 1000;
                } catch (NumberFormatException e) {
                    return 200L;
                }
            }).orElse(200L);
            Thread.sleep(Math.max(100, Math.min(waitMs, 2000)));
        }
    }
}
