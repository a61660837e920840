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
public record ClusterSpec(Path java, String classpath, Path haproxy, BladeJars blade, int backends,
                          List<String> backendJvmFlags, List<String> demoArgs, Path logDir) {
    /**
     * The jars of Blade's cluster mode.
     *
     * @param agent       {@code agent/target/blade-agent-<version>.jar}
     * @param coordinator {@code coordinator/target/blade-coordinator.jar}
     */
    public record BladeJars(Path agent, Path coordinator) {
        public BladeJars {
            Objects.requireNonNull(agent, "agent");
            Objects.requireNonNull(coordinator, "coordinator");
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
