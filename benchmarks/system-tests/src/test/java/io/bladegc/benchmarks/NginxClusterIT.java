package io.bladegc.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.OpenLoopLoad;
import io.bladegc.testkit.FreePorts;
import io.bladegc.testkit.NginxProcess;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Debian's nginx in front of three demo backends with the agent and the filter: the gate's 503s retried on another
 * backend by {@code proxy_next_upstream http_503}, so no client sees one. nginx open source has no runtime API, so
 * nothing takes a collecting node out of its rotation: the coordinator runs in generic mode (no load balancer), only
 * granting slots, K = 1. That keeps at most one backend shedding at a time, so each retry finds one serving; three
 * backends in single-node mode would now and then shed together, and a request tried on all three would get the last
 * 503. Passive health is off ({@code max_fails=0}): with {@code http_503} in {@code proxy_next_upstream} nginx counts
 * every shed request as a failure, and its default ({@code max_fails=1 fail_timeout=10s}) would take a backend out for
 * ten seconds after each collection. Open-loop load goes through nginx; output in {@code target/nginx-it/}.
 *
 * <p>Checked in the measured window: no client-visible error (no 5xx, no I/O error, timeout or unfinished request, and
 * nginx's access log agrees); nginx retried shed requests, each on backends it had not tried; every backend collected,
 * mostly inside quiet windows: at most half as many collections outside as inside, ClusterIT's bound for coordinated
 * nodes (one whose threshold comes while another holds the slot may collect on its own first).
 */
@Tag("cluster")
class NginxClusterIT {
    private static final Path LOGS = Path.of("target", "nginx-it");
    private static final int BACKENDS = 3;
    private static final double RATE = 400;
    private static final Duration WARMUP = Duration.ofSeconds(10);
    private static final Duration MEASURED = Duration.ofSeconds(20);

    @Test
    void nginxRetriesTheShedRequestsAndNoClientSeesAnError() throws Exception {
        Path binary = NginxProcess.find().orElse(null);
        assumeTrue(binary != null,
            "nginx is not installed (not on the PATH, nor in /usr/sbin): apt-get install -y nginx, as .ci/run does");
        try (CoordinatedCluster c = new CoordinatedCluster(LOGS)) {
            c.startCoordinator("coordinator", "--lease", "5s");
            List<DemoServerProcess> backends = new ArrayList<>();
            for (int i = 1; i <= BACKENDS; i++) {
                backends.add(c.startBackend("n" + i, ""));
            }
            c.awaitGranting(BACKENDS);
            int port = FreePorts.one();
            try (NginxProcess nginx = NginxProcess.start(binary, LOGS.resolve("nginx"), port,
                servers(port, backends))) {
                run(c.http(), nginx, backends);
            }
        }
    }

    private static void run(HttpClient http, NginxProcess nginx, List<DemoServerProcess> backends) throws Exception {
        CompletableFuture<Long> accessLogStart = new CompletableFuture<>();
        LoadResult load = OpenLoopLoad.builder(nginx.uri("/work"))
            .rate(RATE).warmup(WARMUP).duration(MEASURED).timeout(Duration.ofSeconds(10))
            .onMeasureStart(() -> {
                try {
                    long offset = Files.size(nginx.accessLog());
                    for (DemoServerProcess b : backends) {
                        b.resetStats(http);
                    }
                    accessLogStart.complete(offset);
                } catch (Exception e) {
                    accessLogStart.completeExceptionally(e);
                }
            })
            .build()
            .run();
        Access access = Access.read(nginx.accessLog(), accessLogStart.get(30, TimeUnit.SECONDS));

        List<String> perBackend = new ArrayList<>();
        List<long[]> plannedAndNot = new ArrayList<>();
        for (int i = 0; i < backends.size(); i++) {
            JsonNode stats = backends.get(i).stats(http);
            assertThat(stats.get("gcEventsDropped").asLong()).as("GC notifications the demo dropped").isZero();
            List<NodePauses.Pause> pauses = NodePauses.of("n" + (i + 1), stats);
            long planned = pauses.stream().filter(NodePauses.Pause::planned).count();
            long longest = pauses.stream().mapToLong(p -> p.wallEndMs() - p.wallStartMs()).max().orElse(0);
            plannedAndNot.add(new long[] {planned, pauses.size() - planned});
            perBackend.add(String.format("n%d: %d pauses, %d planned, longest %d ms", i + 1, pauses.size(), planned,
                longest));
        }
        System.out.printf("NginxClusterIT: %s%nnginx: %s%n%s%nlatency ok p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, "
                + "max %.2f ms%n", perBackend, access, load, load.okPercentileMicros(50) / 1000.0,
            load.okPercentileMicros(99) / 1000.0, load.okPercentileMicros(99.9) / 1000.0,
            load.okLatency().getMaxValue() / 1000.0);

        assertThat(load.ok()).isPositive();
        assertThat(load.shed()).as("503s that reached the client (nginx retries them elsewhere)").isZero();
        assertThat(load.otherStatus()).as("statuses other than 2xx: %s", load.otherStatuses()).isZero();
        assertThat(load.ioErrors() + load.timeouts() + load.unfinished()).as("failed requests").isZero();
        assertThat(access.notOk).as("answers other than 200 in nginx's access log: %s", access.firstNotOk).isZero();

        assertThat(access.retried).as("requests nginx retried after a backend's 503").isPositive();
        assertThat(access.sameBackendTwice).as("requests nginx sent twice to one backend: %s", access.firstTwice)
            .isZero();
        for (int i = 0; i < backends.size(); i++) {
            long planned = plannedAndNot.get(i)[0];
            long unplanned = plannedAndNot.get(i)[1];
            assertThat(planned).as("n%d's collections inside a quiet window", i + 1).isPositive();
            assertThat(unplanned).as("n%d's collections outside a quiet window (%d inside)", i + 1, planned)
                .isLessThanOrEqualTo(Math.max(1, planned / 2));
        }
    }

    /**
     * @return nginx's servers: upstream {@code blade} over the backends with keep-alive connections and passive health
     *     off, a server on {@code port} retrying a 503 (and a connection error or timeout) on the next backend
     */
    private static String servers(int port, List<DemoServerProcess> backends) {
        StringBuilder b = new StringBuilder("    upstream blade {\n");
        for (DemoServerProcess backend : backends) {
            b.append("        server 127.0.0.1:").append(backend.uri("/").getPort()).append(" max_fails=0;\n");
        }
        return b.append("        keepalive 16;\n")
            .append("    }\n")
            .append("    server {\n")
            .append("        listen 127.0.0.1:").append(port).append(";\n")
            .append("        location / {\n")
            .append("            proxy_pass http://blade;\n")
            .append("            proxy_http_version 1.1;\n")
            .append("            proxy_set_header Connection \"\";\n")
            .append("            proxy_next_upstream error timeout http_503;\n")
            .append("            proxy_next_upstream_tries 3;\n")
            .append("            proxy_connect_timeout 1s;\n")
            .append("            proxy_read_timeout 10s;\n")
            .append("        }\n")
            .append("    }")
            .toString();
    }

    /** nginx's access log from an offset on, in {@link NginxProcess}'s format: status, upstream statuses, addresses. */
    private static final class Access {
        long requests;
        long notOk;
        String firstNotOk = "";
        long retried;
        long shedAttempts;
        long sameBackendTwice;
        String firstTwice = "";

        static Access read(Path log, long offset) throws Exception {
            Access a = new Access();
            for (String line : CoordinatedCluster.since(log, offset).split("\n")) {
                String[] f = line.split("\t");
                if (f.length < 5) {
                    continue; // nothing logged
                }
                a.requests++;
                if (!f[0].equals("200") && a.notOk++ == 0) {
                    a.firstNotOk = line;
                }
                long sheds = Arrays.stream(f[1].split(", ")).filter("503"::equals).count();
                a.shedAttempts += sheds;
                a.retried += sheds > 0 ? 1 : 0;
                List<String> addresses = List.of(f[2].split(", "));
                if (addresses.stream().distinct().count() < addresses.size() && a.sameBackendTwice++ == 0) {
                    a.firstTwice = line;
                }
            }
            return a;
        }

        @Override
        public String toString() {
            return String.format("%d requests logged in the window, %d retried after %d shed attempts, %d not 200",
                requests, retried, shedAttempts, notOk);
        }
    }
}
