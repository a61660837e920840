package io.bladegc.benchmarks.suite.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.GrpcBackendProcess;
import io.bladegc.benchmarks.cluster.StartedParts;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.BladeMode;
import io.bladegc.testkit.CoordinatorProcess;
import io.bladegc.testkit.FreePorts;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code grpc-cluster} scenario's running processes for one arm: with {@link BladeMode#COORDINATED} the
 * coordinator (generic mode, {@link GrpcClusterScenario#COORDINATOR_ARGS}) and every backend's agent in coordinated
 * mode ({@code coordinator=<url>,nodeId=n<i>}), then the backends; ready once the coordinator grants. {@link #close()}
 * stops them by pid in the reverse order ({@link StartedParts}), and so does a failed {@link #start}. Thread-safe
 * close (a shutdown hook may call it).
 */
final class GrpcCluster implements AutoCloseable {
    private static final Duration GRANTING_TIMEOUT = Duration.ofSeconds(30);

    private final StartedParts started = new StartedParts();
    private final List<GrpcBackendProcess> backends = new ArrayList<>();

    /**
     * Starts the arm's processes; call it once.
     *
     * @param arm    the arm
     * @param o      the command line (the jars)
     * @param logDir where the children's output and GC logs go
     * @param http   a client for the coordinator's readiness
     * @throws Exception when a part does not start; what was started is stopped again
     */
    void start(Arm arm, SuiteOptions o, Path logDir, HttpClient http) throws Exception {
        try {
            CoordinatorProcess coordinator = null;
            if (arm.blade() == BladeMode.COORDINATED) {
                coordinator = started.track(CoordinatorProcess.start("coordinator", arm.java(),
                    CoordinatorProcess.SIDECAR_JVM_OPTIONS, o.coordinatorJar(), FreePorts.one(),
                    GrpcClusterScenario.COORDINATOR_ARGS, logDir.resolve("coordinator.log")));
            }
            for (int i = 1; i <= GrpcClusterScenario.BACKENDS; i++) {
                String node = "n" + i;
                List<String> flags = new ArrayList<>();
                if (coordinator != null) {
                    flags.add("-javaagent:" + o.agentJar() + "=coordinator=" + coordinator.uri() + ",nodeId=" + node);
                }
                flags.addAll(arm.serverFlags(o.agentJar(), logDir));
                backends.add(started.track(GrpcBackendProcess.start(node, arm.java(),
                    System.getProperty("java.class.path"), flags, GrpcClusterScenario.work(arm.blade() != BladeMode.NONE),
                    logDir)));
            }
            if (coordinator != null) {
                awaitGranting(coordinator, http);
            }
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** Waits for every backend to join and for the end of the coordinator's start-up hold (one lease). */
    private static void awaitGranting(CoordinatorProcess coordinator, HttpClient http) throws InterruptedException {
        coordinator.awaitMembers(http, GrpcClusterScenario.BACKENDS);
        coordinator.process().awaitReady(() -> {
            JsonNode c = coordinator.cluster(http);
            return c.path("now").asLong() >= c.path("grantsFrom").asLong();
        }, GRANTING_TIMEOUT, "the coordinator granting");
    }

    /** @return the backends, {@code n1} first */
    List<GrpcBackendProcess> backends() {
        return List.copyOf(backends);
    }

    @Override
    public void close() {
        started.close();
    }
}
