package io.bladegc.benchmarks.suite.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A running process held to a share of the machine's CPU, as a container's {@code --cpus} or a Kubernetes CPU limit
 * holds a replica: its own CPU control group with a CFS quota of {@code cpus} cores per {@value #PERIOD_MICROS} µs
 * period. Replicas on their own hosts each have their own cores; on one machine such a limit keeps what one backend
 * can use its own, so that a drained backend's collection runs on its share while its peers serve, as on its own
 * host, instead of competing with them for every core.
 *
 * <p>Needs root and the CPU controller: cgroup v2 ({@code /sys/fs/cgroup/cgroup.controllers} names {@code cpu}) or
 * v1 ({@code /sys/fs/cgroup/cpu}). The process is moved after it started, so its JVM chose its ergonomics (processor
 * count, compiler threads) without the limit; GC thread counts are given as flags. {@link #close()} removes the group
 * once the process left it (ended). Not thread-safe; one owner.
 */
public final class CpuQuota implements AutoCloseable {
    /** The CFS period: short, so that a throttled process waits at most a few milliseconds per period. */
    static final long PERIOD_MICROS = 10_000;
    private static final Path ROOT = Path.of("/sys/fs/cgroup");

    private final Path group;

    private CpuQuota(Path group) {
        this.group = group;
    }

    /**
     * @param name a file-name-safe name for the group, unique among the running ones
     * @param pid  the process to hold
     * @param cpus cores per period, more than 0
     * @return the quota, in force
     * @throws IOException naming the problem when this machine cannot set it (no CPU controller, not root)
     */
    public static CpuQuota apply(String name, long pid, double cpus) throws IOException {
        if (!(cpus > 0)) {
            throw new IllegalArgumentException("cpus must be more than 0: " + cpus);
        }
        long quota = quotaMicros(cpus);
        boolean v2 = Files.exists(ROOT.resolve("cgroup.controllers"));
        Path parent = v2 ? ROOT : ROOT.resolve("cpu");
        if (v2 ? !Files.readString(ROOT.resolve("cgroup.controllers")).contains("cpu")
                : !Files.exists(parent.resolve("cpu.cfs_quota_us"))) {
            throw new IOException("no CPU control group to limit backends with (cgroup v2 without the cpu controller, "
                + "or no " + parent + "); run without a CPU limit");
        }
        Path group = parent.resolve("blade-bench-" + name);
        try {
            if (v2) {
                Files.writeString(ROOT.resolve("cgroup.subtree_control"), "+cpu");
            }
            Files.createDirectories(group);
            if (v2) {
                Files.writeString(group.resolve("cpu.max"), quota + " " + PERIOD_MICROS);
            } else {
                Files.writeString(group.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
                Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quota));
            }
            Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
        } catch (IOException e) {
            throw new IOException("cannot hold process " + pid + " to " + cpus + " CPUs in " + group
                + " (root is needed): " + e.getMessage(), e);
        }
        return new CpuQuota(group);
    }

    /** @return the quota per {@value #PERIOD_MICROS} µs period for {@code cpus} cores, at least 1 ms */
    static long quotaMicros(double cpus) {
        return Math.max(1_000, Math.round(cpus * PERIOD_MICROS));
    }

    /** @return {@code cpus} as the table's notes print it: "0.5 CPU" */
    public static String label(double cpus) {
        return String.format(Locale.ROOT, "%s CPU", cpus == Math.rint(cpus) ? Long.toString((long) cpus)
            : Double.toString(cpus));
    }

    /**
     * Removes the group, waiting up to 5 s for its process to have left it; a group still in use stays. Idempotent.
     */
    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < 50 && Files.exists(group); i++) {
            try {
                Files.delete(group);
                return;
            } catch (IOException e) {
                Thread.sleep(100); // its process is still ending
            }
        }
        if (Files.exists(group)) {
            System.err.println("suite: could not remove " + group + " (a process still in it?)");
        }
    }
}
