package io.bladegc.benchmarks.suite.harness;

import io.bladegc.benchmarks.cluster.ClusterSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One arm of a suite scenario: a name, the {@code java} its backends run on, their JVM flags and how they run Blade.
 * Immutable.
 *
 * @param name        short and file-name safe ({@code g1}, {@code blade-parallel}); the table's column heading
 * @param java        the backends' {@code java} executable
 * @param jvmFlags    the backends' JVM flags (collector, heap, GC threads), without the agent
 * @param blade       how the backends run Blade
 * @param description one line for the table's notes
 */
public record Arm(String name, Path java, List<String> jvmFlags, BladeMode blade, String description) {
    public Arm {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(java, "java");
        Objects.requireNonNull(blade, "blade");
        Objects.requireNonNull(description, "description");
        jvmFlags = List.copyOf(jvmFlags);
        if (!name.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException("arm names are lower-case letters, digits and '-': " + name);
        }
    }

    /**
     * @param arms  a scenario's arms
     * @param names the arms asked for ({@code --arms}); empty for all
     * @return those of {@code arms} named, in the scenario's order
     * @throws IllegalArgumentException naming an arm the scenario does not have (one skipped on this machine, such
     *     as genzgc without a JDK 21, included)
     */
    public static List<Arm> select(List<Arm> arms, List<String> names) {
        List<String> known = arms.stream().map(Arm::name).toList();
        for (String n : names) {
            if (!known.contains(n)) {
                throw new IllegalArgumentException("no arm " + n + " here; arms: " + String.join(",", known));
            }
        }
        return names.isEmpty() ? arms : arms.stream().filter(a -> names.contains(a.name())).toList();
    }

    /**
     * @param backends   how many backends
     * @param demoArgs   DemoServer arguments of every backend (workload), without {@code --blade} (added here)
     * @param classpath  the benchmarks' classpath
     * @param haproxy    the {@code haproxy} executable
     * @param jars       the agent and coordinator jars (used by the Blade modes)
     * @param logDir     where the children's configuration, output and GC logs go
     * @return the cluster this arm runs: {@link BladeMode#GCI} puts the agent (single-node mode) in front of the
     *     flags, {@link BladeMode#COORDINATED} hands the jars to the cluster (coordinator, agent in coordinated mode)
     */
    public ClusterSpec clusterSpec(int backends, List<String> demoArgs, String classpath, Path haproxy,
                                   ClusterSpec.BladeParts jars, Path logDir) {
        List<String> flags = serverFlags(jars.agent(), logDir);
        List<String> args = new ArrayList<>(demoArgs);
        args.addAll(List.of("--blade", blade == BladeMode.NONE ? "off" : "on"));
        return new ClusterSpec(java, classpath, haproxy, blade == BladeMode.COORDINATED ? jars : null, backends,
            flags, args, logDir);
    }

    /**
     * @param agentJar the agent jar ({@link BladeMode#GCI} puts it in front of the flags, without options: single-node
     *                 mode; {@link BladeMode#COORDINATED} leaves it to the cluster, which adds the coordinator's URL)
     * @param logDir   where the GC log goes ({@code gc-<pid>.log})
     * @return a server's JVM flags: the agent when the mode wants it here, {@link #jvmFlags()}, a GC log
     */
    public List<String> serverFlags(Path agentJar, Path logDir) {
        List<String> flags = new ArrayList<>();
        if (blade == BladeMode.GCI) {
            flags.add("-javaagent:" + agentJar);
        }
        flags.addAll(jvmFlags);
        // the wall-clock time beside the uptime: a window's slow requests can be matched to the pauses behind them
        flags.add("-Xlog:gc*:file=" + logDir.toAbsolutePath().resolve("gc-%p.log") + ":time,uptime,level,tags");
        return flags;
    }
}
