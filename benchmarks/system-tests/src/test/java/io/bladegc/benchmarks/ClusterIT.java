package io.bladegc.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.Cluster;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterObserver;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.testkit.HaproxyProcess;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Flow 2 end to end with real processes ({@link Cluster}): HAProxy (runtime API on a unix socket, {@code retry-on 503}
 * with {@code option redispatch}), the coordinator jar with the HAProxy adapter and K=1, and three demo backends on
 * Jetty in child JVMs running the built agent in coordinated mode. Open-loop load goes through HAProxy's frontend
 * ({@link ClusterArm}); children's output in {@code target/cluster-it/}.
 *
 * <p>Checked: no client-visible error; never more than one node collecting at any instant (from the coordinator's
 * events, polled every 100 ms, and from its {@code collecting} list); every node was granted slots and its own JVM
 * reports forced collections; a server is out of HAProxy's rotation only around a grant of its own node.
 */
@Tag("cluster")
class ClusterIT {
    /** GC notification stamps and durations have millisecond resolution: overlaps up to this are not counted. */
    private static final long STAMP_TOLERANCE_MS = 2;
    private static final long SLACK_MS = 150;

    @Test
    void atMostOneNodeCollectsAndNoRequestFails() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        ClusterSpec spec = new ClusterSpec(ClusterSpec.currentJava(),
            DemoProcess.requiredProperty("bladegc.benchmarks.classpath"), HaproxyProcess.find().orElseThrow(),
            new ClusterSpec.BladeParts(Path.of(DemoProcess.requiredProperty("bladegc.agent.jar")),
                Path.of(DemoProcess.requiredProperty("bladegc.coordinator.jar"))),
            3,
            List.of("-XX:+UseParallelGC", "-XX:-UseAdaptiveSizePolicy", "-Xms256m", "-Xmx256m", "-Xmn48m",
                "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1", "-XX:+AlwaysPreTouch",
                "-Djava.util.logging.SimpleFormatter.format=%4$s %5$s%6$s%n"),
            List.of("--live-mb", "64", "--garbage-kb", "128", "--churn-kb", "8", "--blade", "on", "--threads", "16"),
            Path.of("target", "cluster-it"));
        try (Cluster cluster = new Cluster()) {
            cluster.start(spec, http);
            // node counters when the measured window starts: start-up collections (the live set being built while
            // the nodes join and queue) are not judged
            ClusterArm.Result arm = ClusterArm.run("Blade", cluster, 300, Duration.ofSeconds(5),
                Duration.ofSeconds(20), http);
            LoadResult load = arm.load();
            ClusterObserver observer = arm.observer();

            // (a) the coordinator's view: grant intervals from its events, and its collecting list at every poll
            List<ClusterObserver.Grant> grants = observer.grants();
            Map<String, Integer> grantsPerNode = observer.grantsPerNode(grants);
            int maxConcurrent = ClusterObserver.maxConcurrent(grants);

            // (b) each backend's own record: its GC notifications and the node's Forced / Escaped counters
            Map<String, String> perBackend = new LinkedHashMap<>();
            List<NodePauses.Pause> planned = new ArrayList<>();
            List<NodePauses.Pause> all = new ArrayList<>();
            for (ClusterArm.NodeWindow n : arm.nodes()) {
                for (NodePauses.Pause p : NodePauses.of(n.node(), n.end())) {
                    all.add(p);
                    if (p.planned()) {
                        planned.add(p);
                    }
                }
                JsonNode start = n.start().get("node");
                JsonNode node = n.end().get("node");
                perBackend.put(n.node(), String.format("pauses in window=%d Forced=%s (measured %d) Escaped=%s"
                    + " (measured %d)", n.end().get("gcPauses").size(), node.path("Forced").asText("?"),
                    node.path("Forced").asLong() - start.path("Forced").asLong(), node.path("Escaped").asText("?"),
                    node.path("Escaped").asLong() - start.path("Escaped").asLong()));
            }

            List<String> plannedOverlaps = NodePauses.overlaps(planned, STAMP_TOLERANCE_MS);
            List<String> anyOverlaps = NodePauses.overlaps(all, STAMP_TOLERANCE_MS);
            System.out.printf("ClusterIT: pauses from the backends' own notifications: %d, %d of them planned "
                + "(inside a quiet window); overlapping pairs across nodes: %d planned, %d counting unplanned ones%s%n",
                all.size(), planned.size(), plannedOverlaps.size(), anyOverlaps.size(),
                anyOverlaps.isEmpty() ? "" : ": " + anyOverlaps.subList(0, Math.min(5, anyOverlaps.size())));
            List<String> rotationViolations = observer.rotationViolations(grants, SLACK_MS);
            System.out.printf("ClusterIT: grants per node %s, max concurrent grants (events) %d, max collecting "
                    + "(polls) %d, polls %d, events seen %d, expired %d%nbackends: %s%nhaproxy: %s%n"
                    + "server-out samples %d, violations %s%n%s%n",
                grantsPerNode, maxConcurrent, observer.maxCollecting(), observer.polls(), observer.eventCount(),
                observer.count("EXPIRED"), perBackend, arm.haproxyEnd(), observer.outSamples(),
                rotationViolations.subList(0, Math.min(10, rotationViolations.size())), load);
            System.out.printf("latency ok p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n",
                load.okPercentileMicros(50) / 1000.0, load.okPercentileMicros(99) / 1000.0,
                load.okPercentileMicros(99.9) / 1000.0, load.okLatency().getMaxValue() / 1000.0);

            assertThat(observer.pollErrors()).as("coordinator/HAProxy polls that failed").isLessThan(5);
            assertThat(load.ok()).isPositive();
            assertThat(load.shed()).as("503s that reached the client (HAProxy retries them elsewhere)").isZero();
            assertThat(load.otherStatus()).as("statuses other than 2xx: %s", load.otherStatuses()).isZero();
            assertThat(load.ioErrors() + load.timeouts() + load.unfinished()).as("failed requests").isZero();

            assertThat(maxConcurrent).as("grants open at once, from the coordinator's events").isLessThanOrEqualTo(1);
            assertThat(observer.maxCollecting()).as("collecting nodes in any /v1/cluster poll").isLessThanOrEqualTo(1);
            assertThat(observer.count("EXPIRED")).as(() -> "leases that ran out, with each node's events before: "
                + String.join(System.lineSeparator(), observer.withNodeHistory("EXPIRED"))).isZero();
            assertThat(planned).as("planned pauses in the backends' own notifications").isNotEmpty();
            assertThat(plannedOverlaps).as("planned pauses of two nodes at one instant, from their own notifications")
                .isEmpty();
            for (ClusterArm.NodeWindow n : arm.nodes()) {
                assertThat(grantsPerNode.get(n.node())).as("grants for %s", n.node()).isPositive();
                assertThat(n.start()).as("counters of %s at the start of the measured window", n.node()).isNotNull();
                JsonNode node = n.end().get("node");
                long forced = node.path("Forced").asLong() - n.start().get("node").path("Forced").asLong();
                long escaped = node.path("Escaped").asLong() - n.start().get("node").path("Escaped").asLong();
                assertThat(forced).as("collections %s forced inside a grant while measured: %s", n.node(), node)
                    .isPositive();
                // a node whose threshold comes while another holds the slot may collect on its own before its turn: its
                // lead time covers only the waits for a grant it has seen lately (ScheduleLead), so a first or longer
                // wait can find it short; counted, at most half of its collections
                assertThat(escaped).as("collections %s took on its own while measured (forced %d)", n.node(), forced)
                    .isLessThanOrEqualTo(Math.max(1, forced / 2));
            }
            assertThat(observer.outSamples()).as("polls that saw a server out of rotation").isPositive();
            assertThat(rotationViolations).as("a server out of rotation with no grant of its node nearby").isEmpty();
        }
    }
}
