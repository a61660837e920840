package io.bladegc.agent;

import static io.bladegc.testkit.ChildJvm.currentJava;
import static io.bladegc.testkit.ChildJvm.javaagent;
import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.coordination.FakeCoordinator;
import io.bladegc.agent.coordination.FakeCoordinator.Call;
import io.bladegc.agent.coordination.FakeCoordinator.Reply;
import io.bladegc.agent.testapp.TinyApp;
import io.bladegc.testkit.ChildJvm;
import io.bladegc.testkit.ChildJvm.Run;
import io.bladegc.testkit.FreePorts;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shaded agent jar in a child JVM in coordinated mode, against a fake coordinator in this JVM: it joins,
 * heartbeats, coordinates its collections (acquire, drain and collect, release with the granted epoch), leaves at
 * exit; with the coordinator unreachable it fails open and the application runs as before.
 */
class CoordinatedAgentIT {
    /**
     * The child's pause between 64 KiB of garbage while it coordinates: about 30 MB/s, so its 13 MiB eden lasts some
     * 400 ms. At TinyApp's default (about 300 MB/s, eden filled in 55 ms) a cold JVM's first grants (57-107 ms, the
     * HTTP client warming up) outlast eden, and the node rightly leaves its collections to the JVM: nothing coordinated.
     */
    private static final int COORDINATED_PAUSE_MICROS = 2_000;

    private static long stat(Run r, String prefix, String name) {
        String line = r.stdoutLines().stream().filter(l -> l.startsWith(prefix)).findFirst()
            .orElseThrow(() -> new AssertionError("no '" + prefix + "' line\n" + r));
        Matcher m = Pattern.compile("\\b" + name + "=(\\d+)").matcher(line);
        assertThat(m.find()).as("%s in %s", name, line).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void theAgentJoinsHeartbeatsCoordinatesItsCollectionsAndLeavesAtExit() throws Exception {
        try (FakeCoordinator fake = FakeCoordinator.start()) {
            // epoch = 1000 + gcId, so that a release names the request it was granted for
            fake.on("acquire", c -> Reply.granted(1000 + c.longField("gcId"), 10_000));
            Run r = ChildJvm.run(currentJava(), Map.of("BLADE_TOKEN", "it-s3cr3t"), TinyApp.class,
                "-XX:+UseSerialGC", "-Xmn16m", "-Dtinyapp.allocate=true", "-Dtinyapp.allocateMillis=3000",
                "-Dtinyapp.pauseMicros=" + COORDINATED_PAUSE_MICROS, "-Dtinyapp.coordination=true",
                javaagent("coordinator=" + fake.uri() + ",nodeId=it-node,coordinatorTimeout=2s"));

            assertThat(r.exitCode()).as("%s", r).isZero();
            assertThat(r.stdoutLines()).as("%s", r).contains("app ran");
            assertThat(r.bladeLines()).as("no [blade] problem lines\n%s", r).isEmpty();
            List<Call> calls = fake.calls();
            assertThat(calls).as("every call names the node")
                .allSatisfy(c -> assertThat(c.node()).isEqualTo("it-node"));
            assertThat(calls).as("every call carries the token").allSatisfy(c ->
                assertThat(c.authorization()).isEqualTo("Bearer it-s3cr3t"));
            assertThat(calls.get(0).op()).as("first it joins").isEqualTo("join");
            assertThat(fake.calls("heartbeat")).as("a heartbeat a second over three seconds\n%s", r).isNotEmpty();
            assertThat(calls.get(calls.size() - 1).op()).as("last it leaves (shutdown hook)").isEqualTo("leave");

            List<Call> releases = fake.calls("release");
            assertThat(releases).as("coordinated collections\n%s", r).isNotEmpty();
            for (Call release : releases) {
                long gcId = release.longField("epoch") - 1000;
                assertThat(fake.calls("acquire")).as("the grant released").anySatisfy(a -> {
                    assertThat(a.longField("gcId")).isEqualTo(gcId);
                    assertThat(a.nanos()).isLessThan(release.nanos());
                });
            }
            // the app prints its stats before it exits, and may collect once more after that
            assertThat(stat(r, "blade coordination: ", "Grants")).isPositive()
                .isLessThanOrEqualTo(fake.calls("acquire").size());
            assertThat(stat(r, "blade stats: ", "Forced")).isPositive();
            assertThat(r.stderr()).as("the start-up line").contains(", coordinator=" + fake.uri()
                + ", node id=it-node, coordinator timeout=2000 ms, token set");
            assertThat(r.stderr()).contains("Blade GC #", "granted (epoch 10", "T_schedule", "T_notify", "released")
                .doesNotContain("it-s3cr3t");
        }
    }

    @Test
    void withAReplicatedCoordinatorTheAgentFindsTheLeaderAndCoordinatesThroughIt() throws Exception {
        try (FakeCoordinator follower = FakeCoordinator.start(); FakeCoordinator leader = FakeCoordinator.start()) {
            follower.leader(false);
            String replicas = "http://127.0.0.1:" + FreePorts.one() + "|" + follower.uri() + "|"
                + leader.uri();
            Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class,
                "-XX:+UseSerialGC", "-Xmn16m", "-Dtinyapp.allocate=true", "-Dtinyapp.allocateMillis=3000",
                "-Dtinyapp.pauseMicros=" + COORDINATED_PAUSE_MICROS, "-Dtinyapp.coordination=true",
                javaagent("coordinator=" + replicas + ",nodeId=it-node,coordinatorTimeout=2s"));

            assertThat(r.exitCode()).as("%s", r).isZero();
            assertThat(r.bladeLines()).as("no [blade] problem lines\n%s", r).isEmpty();
            assertThat(r.stderr()).as("the start-up line").contains(", coordinator=" + replicas + ", node id=it-node");
            assertThat(r.stderr()).as("one switch, logged once").containsOnlyOnce("now talks to coordinator replica "
                + leader.uri());
            assertThat(follower.calls()).as("asked once, answered NOT_LEADER").hasSize(1);
            assertThat(leader.calls().get(0).op()).isEqualTo("join");
            assertThat(leader.calls("release")).as("coordinated collections\n%s", r).isNotEmpty();
            assertThat(stat(r, "blade coordination: ", "Grants")).isPositive();
            assertThat(stat(r, "blade coordination: ", "Failovers")).isEqualTo(1);
        }
    }

    @Test
    void withTheCoordinatorUnreachableTheAgentFailsOpenAndTheApplicationRunsAsBefore() throws Exception {
        int port = FreePorts.one();
        long t0 = System.nanoTime();
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class,
            "-XX:+UseSerialGC", "-Xmn16m", "-Dtinyapp.allocate=true",
            "-Dtinyapp.coordination=true", javaagent("coordinator=http://127.0.0.1:" + port));
        long seconds = (System.nanoTime() - t0) / 1_000_000_000L;

        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.stdoutLines()).as("%s", r).contains("app ran");
        assertThat(r.bladeLines()).as("%s", r).isEmpty();
        assertThat(r.stderr()).as("%s", r).contains("is unavailable", "fail-open (coordinator unreachable");
        assertThat(stat(r, "blade coordination: ", "FailOpens")).as("%s", r).isPositive();
        assertThat(stat(r, "blade coordination: ", "Grants")).isZero();
        assertThat(stat(r, "blade stats: ", "Forced")).as("collected locally, as a single node").isPositive();
        assertThat(r.stdout()).contains("CoordinatorUp=false");
        assertThat(seconds).as("two seconds of work; nothing waits for the coordinator at exit").isLessThan(15);
    }
}
