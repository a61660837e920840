package io.bladegc.agent;

import static io.bladegc.testkit.ChildJvm.currentJava;
import static io.bladegc.testkit.ChildJvm.javaagent;
import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.coordination.HostileCoordinator;
import io.bladegc.agent.coordination.HostileCoordinator.Answer;
import io.bladegc.agent.testapp.TinyApp;
import io.bladegc.testkit.ChildJvm;
import io.bladegc.testkit.ChildJvm.Run;
import io.bladegc.testkit.FreePorts;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The shaded agent in a child JVM under load (allocating for three seconds), its coordinator URL pointing at
 * something hostile ({@link HostileCoordinator}): for each hostile answer the application finishes, and its heap after
 * a full collection is within 10 % of the same run with no coordinator (a closed port): whatever answers, the agent
 * keeps nothing of it.
 */
@Tag("cluster")
class HostileCoordinatorIT {
    private static final double HEAP_TOLERANCE = 0.10;
    private static long baselineHeap;

    private static Run runAgainst(String coordinator) throws Exception {
        return runAgainst(coordinator, Long.MAX_VALUE);
    }

    /** @param histogramAbove bytes of heap above which the child prints its live objects by class */
    private static Run runAgainst(String coordinator, long histogramAbove) throws Exception {
        // A full collection that compacts all: Serial's mark-compact otherwise leaves up to MarkSweepDeadRatio (5 %)
        // of the old generation as dead wood, filler int[] objects it counts as used, as much as where dead objects
        // happened to lie allows. That was this test's one-off failures (a run 0.4-1.9 MB heavier, the surplus int[]
        // in the child's histogram and gone from a heap dump taken right after): 20 runs with it gave 3.24-4.87 MB,
        // 20 with the ratio at 0 gave 3.221-3.233 MB (load average 11). Soft references cleared at every collection:
        // softly held caches (the JDK's, for the log lines' dates and reflection) survive one or not by timing.
        return ChildJvm.run(currentJava(), Map.of(), TinyApp.class,
            "-XX:+UseSerialGC", "-XX:ParallelGCThreads=1", "-Xmn16m",
            "-XX:MarkSweepDeadRatio=0", "-XX:SoftRefLRUPolicyMSPerMB=0",
            "-Dtinyapp.allocate=true", "-Dtinyapp.allocateMillis=3000", "-Dtinyapp.coordination=true",
            "-Dtinyapp.heap=true", "-Dtinyapp.histogramAbove=" + histogramAbove,
            javaagent("coordinator=" + coordinator + ",nodeId=it-node,coordinatorTimeout=1s"));
    }

    private static long heapAfterFullCollection(Run r) {
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.stdoutLines()).as("%s", r).contains("app ran");
        String line = r.stdoutLines().stream().filter(l -> l.startsWith("heap after full collection: ")).findFirst()
            .orElseThrow(() -> new AssertionError("no heap line\n" + r));
        return Long.parseLong(line.substring(line.indexOf(": ") + 2));
    }

    @BeforeAll
    static void runWithNoCoordinator() throws Exception {
        Run r = runAgainst("http://127.0.0.1:" + FreePorts.one());
        baselineHeap = heapAfterFullCollection(r);
        System.out.printf("no coordinator: %s%n",
            r.stdoutLines().stream().filter(l -> l.startsWith("heap pools")).findFirst().orElse("?"));
    }

    @ParameterizedTest
    @EnumSource(Answer.class)
    void theApplicationFinishesAndItsHeapStaysAsWithNoCoordinator(Answer answer) throws Exception {
        try (HostileCoordinator hostile = new HostileCoordinator(answer)) {
            long t0 = System.nanoTime();
            Run r = runAgainst(hostile.uri().toString(), (long) (baselineHeap * (1 + HEAP_TOLERANCE)));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);

            long heap = heapAfterFullCollection(r);
            System.out.printf("%s: heap after a full collection %d bytes (no coordinator: %d), %d connections, "
                + "%d ms; %s%n", answer, heap, baselineHeap, hostile.connections().size(), took.toMillis(),
                r.stderrLines().stream().filter(l -> l.contains("is unavailable")).findFirst().orElse("?"));
            System.out.printf("%s: %s%n", answer,
                r.stdoutLines().stream().filter(l -> l.startsWith("heap pools")).findFirst().orElse("?"));
            assertThat(hostile.connections()).as("the agent called it\n%s", r).isNotEmpty();
            assertThat(r.stderr()).as("%s", r).contains("is unavailable");
            assertThat(r.stdout()).as("%s", r).contains("CoordinatorUp=false");
            assertThat(took).as("three seconds of work; each call ends within a second\n%s", r)
                .isLessThan(Duration.ofSeconds(20));
            assertThat((double) heap).as("heap after a full collection (no coordinator: %d bytes)\n%s", baselineHeap,
                r).isBetween(baselineHeap * (1 - HEAP_TOLERANCE), baselineHeap * (1 + HEAP_TOLERANCE));
        }
    }
}
