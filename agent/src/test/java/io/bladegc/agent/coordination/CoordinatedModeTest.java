package io.bladegc.agent.coordination;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.agent.coordination.FakeCoordinator.Call;
import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinated mode wired on a real node ({@link Blade#startNode}) in this JVM: real upcalls from the heap
 * watcher, real drains and collections, against a fake coordinator on loopback.
 */
class CoordinatedModeTest {
    private static volatile Object sink;

    private FakeCoordinator fake;
    private CoordinatedMode mode;
    private final LogLines log = new LogLines();

    @BeforeEach
    void fake() throws IOException {
        fake = FakeCoordinator.start();
    }

    @AfterEach
    void stop() {
        if (mode != null) {
            mode.close();
        }
        Blade.stopNode();
        fake.close();
    }

    private CoordinatedMode start(URI coordinator) {
        BladeOptions options = BladeOptions.builder().coordinator(coordinator).nodeId("real-1")
            .coordinatorTimeout(Duration.ofSeconds(2)).build();
        BladeNode node = Blade.startNode(options);
        return CoordinatedMode.start(node, options, log, Duration.ofMillis(100), false);
    }

    /** Allocates steadily, like a service, until the condition holds (at most 30 s). */
    private void allocateUntil(BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            for (int i = 0; i < 64; i++) {
                sink = new byte[1024];
            }
            Thread.sleep(0, 500_000);
        }
        assertThat(done.getAsBoolean()).as("within 30 s of steady allocation; log: %s", log.lines).isTrue();
    }

    @Test
    void aRealUpcallIsGrantedDrainedCollectedAndReleased() throws Exception {
        // epoch = 1000 + gcId, so that a release names the request it was granted for
        fake.on("acquire", c -> FakeCoordinator.Reply.granted(1000 + c.longField("gcId"), 10_000));
        mode = start(fake.uri());
        await().atMost(Duration.ofSeconds(5)).until(() -> mode.membership().isUp());
        allocateUntil(() -> !fake.calls("release").isEmpty());

        Call release = fake.calls("release").get(0);
        long gcId = release.longField("epoch") - 1000;
        Call acquire = fake.calls("acquire").stream().filter(c -> c.longField("gcId") == gcId).findFirst()
            .orElseThrow(() -> new AssertionError("a release of epoch " + (1000 + gcId) + " never granted"));
        assertThat(acquire.node()).isEqualTo("real-1");
        assertThat(acquire.longField("leadMillis")).as("the watcher's lead time, from the node MBean")
            .isBetween(0L, 3_600_000L);
        assertThat(acquire.nanos()).isLessThan(release.nanos());
        await().atMost(Duration.ofSeconds(5)).until(() -> !log.matching("Blade GC #" + gcId + " ").isEmpty());
        assertThat(log.matching("Blade GC #" + gcId + " ")).singleElement().asString()
            .startsWith("INFO Blade GC #" + gcId)
            .contains("granted (epoch " + (1000 + gcId), "T_schedule", "T_trailers", "T_gc", "T_notify", "; released")
            .containsAnyOf("(COLLECTED)", "(ALREADY_COLLECTED)");

        ObjectName name = new ObjectName(CoordinationStats.NAME);
        Object grants = ManagementFactory.getPlatformMBeanServer().getAttribute(name, "Grants");
        assertThat((Long) grants).isGreaterThanOrEqualTo(1);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(name, "NodeId")).isEqualTo("real-1");
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(name, "CoordinatorUp")).isEqualTo(true);
    }

    @Test
    void withTheCoordinatorDownTheNodeCollectsOnItsOwnLikeASingleNode() throws Exception {
        mode = start(URI.create("http://127.0.0.1:" + FreePorts.one()));
        ObjectName node = new ObjectName("io.bladegc:type=Node");
        allocateUntil(() -> log.lines.stream().anyMatch(l -> l.contains("fail-open") && l.contains("(COLLECTED)")));
        assertThat((Long) ManagementFactory.getPlatformMBeanServer().getAttribute(node, "Forced"))
            .as("collections forced by the node itself").isPositive();
        assertThat((Long) mode.stats().get("FailOpens")).isPositive();
        assertThat(mode.stats()).containsEntry("CoordinatorUp", false).containsEntry("Grants", 0L);
    }
}
