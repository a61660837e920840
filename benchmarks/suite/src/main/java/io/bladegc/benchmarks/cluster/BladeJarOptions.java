package io.bladegc.benchmarks.cluster;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options naming Blade's jars, which {@link ClusterDemo}'s and {@code SuiteMain}'s command lines share:
 * {@code --agent-jar} and {@code --coordinator-jar}, both required. A picocli mixin ({@code @Mixin}); one per parse,
 * not thread-safe.
 */
public final class BladeJarOptions {
    @Option(names = "--agent-jar", paramLabel = "JAR", required = true, description = "the agent jar")
    Path agentJar;

    @Option(names = "--coordinator-jar", paramLabel = "JAR", required = true, description = "the coordinator jar")
    Path coordinatorJar;

    /** @return the agent jar */
    public Path agentJar() {
        return agentJar;
    }

    /** @return the coordinator jar */
    public Path coordinatorJar() {
        return coordinatorJar;
    }
}
