package io.bladegc.benchmarks.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@link Cluster#start} starts: HAProxy, {@code backends} demo servers and, when {@code blade} is set, the
 * coordinator with each backend running the agent in coordinated mode. Immutable.
 *
 * @param java            the {@code java} executable for the child JVMs
 * @param classpath       the benchmarks' classes and runtime dependencies (DemoServer's classpath)
 * @param haproxy         the {@code haproxy} executable
 * @param blade           the agent and coordinator jars, or {@code null} for backends without Blade's agent
 * @param backends        how many demo servers, at least 1 (nodes {@code n1..nN}, servers {@code s1..sN})
 * @param backendJvmFlags JVM flags of every backend (collector, heap, ...); the agent flag is added in front
 * @param demoArgs        DemoServer arguments of every backend, without {@code --port} (added per backend)
 * @param logDir          where every child's configuration and output go
 */
public record ClusterSpec(Path java, String classpath, Path haproxy, BladeParts blade, int backends,
                          List<String> backendJvmFlags, List<String> demoArgs, Path logDir) {
    /**
     * Blade's cluster mode: its jars and how the coordinator is configured.
     *
     * @param agent           {@code agent/target/blade-agent-<version>.jar}
     * @param coordinator     {@code coordinator/target/blade-coordinator.jar}
     * @param coordinatorArgs the coordinator's slot options beyond the cluster's own (port, HAProxy, lease), e.g.
     *                        {@code --k-due 2}; empty: its defaults (K = 1)
     */
    public record BladeParts(Path agent, Path coordinator, List<String> coordinatorArgs) {
        public BladeParts {
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(coordinator, "coordinator");
            coordinatorArgs = List.copyOf(coordinatorArgs);
        }

        /** The jars with the coordinator's defaults (K = 1, never beyond). */
        public BladeParts(Path agent, Path coordinator) {
            this(agent, coordinator, List.of());
        }
    }

    public ClusterSpec {
        Objects.requireNonNull(java, "java");
        Objects.requireNonNull(classpath, "classpath");
        Objects.requireNonNull(haproxy, "haproxy");
        Objects.requireNonNull(logDir, "logDir");
        backendJvmFlags = List.copyOf(backendJvmFlags);
        demoArgs = List.copyOf(demoArgs);
        if (backends < 1) {
            throw new IllegalArgumentException("backends must be at least 1: " + backends);
        }
    }

    /** @return the {@code java} of this JVM's own installation ({@code java.home}) */
    public static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }
}
