package io.bladegc.benchmarks;

import static io.bladegc.benchmarks.CoordinatedCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import io.bladegc.testkit.ChildProcess;
import io.bladegc.testkit.FreePorts;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The replicated coordinator with real agents: three coordinator replicas ({@code --peers}) and two DemoServer
 * backends whose agents are given every replica ({@code coordinator=a|b|c}). The leader replica is killed (SIGKILL)
 * while the nodes collect under its grants: the nodes fail over to the new leader by themselves and collect under its
 * grants, and at no sample of the serving replica's ledger do two nodes hold a slot (K=1).
 */
@Tag("cluster")
class ReplicatedCoordinatorIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CoordinatedCluster c;
    private final List<Traffic> traffic = new ArrayList<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, ChildProcess> replicas = new LinkedHashMap<>();

    @AfterEach
    void stop() throws Exception {
        traffic.forEach(Traffic::stop);
        if (c != null) {
            c.close();
        }
    }

    @Test
    void nodesFollowTheLeaderReplicaAndNeverTwoCollect() throws Exception {
        Path logs = Path.of("target", "faults", "replicated-coordinator");
        c = new CoordinatedCluster(logs);
        List<String> peers = new ArrayList<>();
        int[] free = FreePorts.take(6);
        int k = 0;
        for (String id : List.of("c1", "c2", "c3")) {
            ports.put(id, free[k++]);
            peers.add(id + "=127.0.0.1:" + free[k++]);
        }
        for (String id : ports.keySet()) {
            replicas.put(id, c.startCoordinatorOn(ports.get(id), id, "--peers", String.join(",", peers), "--id", id,
                "--raft-dir", logs.resolve("raft").toAbsolutePath().toString(), "--lease", "4s"));
        }
        String all = String.join("|", ports.values().stream().map(p -> "http://127.0.0.1:" + p).toList());
        DemoServerProcess n1 = c.startBackend("n1", all, "");
        DemoServerProcess n2 = c.startBackend("n2", all, "");
        traffic.add(Traffic.lockstep(c.http(), List.of(n1.uri("/work"), n2.uri("/work")), 5));

        String leader = awaitLeader(List.copyOf(ports.keySet()));
        await(() -> granted(leader, "n1", 0) && granted(leader, "n2", 0), "n1 and n2 collecting under " + leader
            + "'s grants");
        c.signal(replicas.get(leader).pid(), "KILL");
        long killed = System.currentTimeMillis();
        List<String> left = ports.keySet().stream().filter(id -> !id.equals(leader)).toList();
        String next = awaitLeader(left);
        await(() -> {
            JsonNode view = cluster(next);
            assertThat(view.path("collecting").size()).as("nodes holding a slot at %s: %s", next, view)
                .isLessThanOrEqualTo(1);
            return granted(next, "n1", killed) && granted(next, "n2", killed);
        }, "n1 and n2 collecting under the new leader " + next + "'s grants");
        for (DemoServerProcess n : List.of(n1, n2)) {
            assertThat(Files.readString(n.process().stderr())).as("%s's log", n.process())
                .contains("now talks to coordinator replica");
        }
    }

    /** The replica among {@code ids} that answers node calls, waiting up to 30 s. */
    private String awaitLeader(List<String> ids) throws Exception {
        String[] found = new String[1];
        await(() -> {
            for (String id : ids) {
                HttpResponse<String> r = c.http().send(HttpRequest.newBuilder(base(id).resolve("/v1/nodes/probe/"
                    + "heartbeat")).timeout(Duration.ofSeconds(2)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 503) {
                    found[0] = id;
                    return true;
                }
            }
            return false;
        }, "a leader among " + ids);
        return found[0];
    }

    /** Whether {@code replica}'s recent events hold a grant to {@code node} after {@code since}. */
    private boolean granted(String replica, String node, long since) throws Exception {
        for (JsonNode e : cluster(replica).path("recentEvents")) {
            if (e.path("type").asText().equals("GRANTED") && e.path("node").asText().equals(node)
                && e.path("at").asLong() > since) {
                return true;
            }
        }
        return false;
    }

    private JsonNode cluster(String replica) throws Exception {
        return JSON.readTree(c.http().send(HttpRequest.newBuilder(base(replica).resolve("/v1/cluster"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    private URI base(String replica) {
        return URI.create("http://127.0.0.1:" + ports.get(replica));
    }
}
