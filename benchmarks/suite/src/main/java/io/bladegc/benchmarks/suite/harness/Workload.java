package io.bladegc.benchmarks.suite.harness;

import io.bladegc.benchmarks.cluster.ClusterDemo;
import java.util.Arrays;
import java.util.List;

/**
 * What the http-cluster and load-sweep backends do per request ({@code --workload}): DemoServer arguments. Both keep
 * a 384 MiB live set in 64-byte arrays, serve on 16 threads and allocate 96 KiB per request; they differ in how much
 * of it replaces part of the live set (old objects that die: what the old generation and G1's marking must keep up
 * with) rather than dying with the request.
 */
public enum Workload {
    /**
     * 32 KiB of garbage and 64 KiB of the live set replaced per request, the cluster demo's ({@link
     * ClusterDemo#WORKLOAD}): the whole live set turns over every 6,000 requests (every 2-4 s per backend under
     * the sweep's loads), a cache under heavy churn; the default.
     */
    CACHE_CHURN("cache-churn", ClusterDemo.WORKLOAD),
    /**
     * 88 KiB of garbage and 8 KiB of the live set replaced per request: most of what a request allocates dies with
     * it, as in a service whose cache turns over in tens of seconds.
     */
    REQUEST_SCOPED("request-scoped", List.of("--live-mb", "384", "--object-bytes", "64", "--garbage-kb", "88",
        "--churn-kb", "8", "--threads", "16"));

    private final String label;
    private final List<String> args;

    Workload(String label, List<String> args) {
        this.label = label;
        this.args = args;
    }

    /** @return the workload {@code --workload} names {@code label}; {@code null} when none */
    public static Workload named(String label) {
        return Arrays.stream(values()).filter(w -> w.label.equals(label)).findFirst().orElse(null);
    }

    /** @return the labels, as {@code --workload} takes them */
    public static List<String> labels() {
        return Arrays.stream(values()).map(Workload::label).toList();
    }

    /** @return the name {@code --workload} takes */
    public String label() {
        return label;
    }

    /** @return the DemoServer arguments */
    public List<String> args() {
        return args;
    }

    /** @return the KiB a request allocates: its garbage and what it replaces of the live set */
    public int kibPerRequest() {
        return kib("--garbage-kb") + kib("--churn-kb");
    }

    private int kib(String option) {
        return Integer.parseInt(args.get(args.indexOf(option) + 1));
    }
}
