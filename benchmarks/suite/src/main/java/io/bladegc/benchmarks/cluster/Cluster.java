package io.bladegc.benchmarks.cluster;

import io.bladegc.testkit.CoordinatorProcess;
import io.bladegc.testkit.FreePorts;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A running demo cluster: HAProxy in front of N {@link DemoServerProcess demo backends}, and with Blade the
 * {@link CoordinatorProcess coordinator} driving HAProxy and every backend's agent in coordinated mode
 * ({@code coordinator=<url>,nodeId=n<i>}). Started in that order (HAProxy first so the coordinator finds its socket;
 * backends last, and with Blade ready once all have joined); {@link #close()} stops them by pid in the reverse
 * order, and so does a failed {@link #start}. One owner starts and uses it; {@link #close()} is thread-safe and
 * idempotent (a shutdown hook may call it, even while {@link #start} runs).
 */
public final class Cluster implements AutoCloseable {
    private final StartedParts started = new StartedParts();
    private final List<String> nodes = new ArrayList<>();
    private final List<DemoServerProcess> backends = new ArrayList<>();
    private Haproxy haproxy;
    private CoordinatorProcess coordinator;

    /**
     * Starts everything {@code spec} asks for, on free ports of 127.0.0.1; call it once.
     *
     * @param http a client for the readiness checks
     * @throws Exception when a part does not start; what was started is stopped again
     */
    public void start(ClusterSpec spec, HttpClient http) throws Exception {
        try {
            startParts(spec, http);
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private void startParts(ClusterSpec spec, HttpClient http) throws Exception {
        int[] free = FreePorts.take(spec.backends() + 2); // the backends, HAProxy, the coordinator
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < spec.backends(); i++) {
            nodes.add("n" + (i + 1));
            ports.add(free[i]);
        }
        haproxy = started.track(Haproxy.start(spec.haproxy(), spec.logDir(), free[spec.backends()], ports));
        if (spec.blade() != null) {
            coordinator = started.track(CoordinatorProcess.start("coordinator", spec.java(),
                CoordinatorProcess.SIDECAR_JVM_OPTIONS, spec.blade().coordinator(), free[spec.backends() + 1],
                coordinatorOptions(spec, haproxy), spec.logDir().resolve("coordinator.log")));
        }
        for (int i = 0; i < nodes.size(); i++) {
            List<String> flags = new ArrayList<>();
            if (coordinator != null) {
                flags.add("-javaagent:" + spec.blade().agent() + "=coordinator=" + coordinator.uri() + ",nodeId="
                    + nodes.get(i));
            }
            flags.addAll(spec.backendJvmFlags());
            List<String> args = new ArrayList<>(List.of("--port", "" + ports.get(i)));
            args.addAll(spec.demoArgs());
            backends.add(started.track(DemoServerProcess.start(nodes.get(i), spec.java(), spec.classpath(), flags,
                args, spec.logDir().resolve(nodes.get(i) + ".out"), spec.logDir().resolve(nodes.get(i) + ".log"))));
        }
        if (coordinator != null) {
            coordinator.awaitMembers(http, nodes.size());
        }
    }

    /**
     * @return the coordinator's options: driving HAProxy's runtime API ({@code --haproxy <socket> --haproxy-servers
     *     n1=app/s1,... --lease 5s}, the {@code i}-th node mapped to HAProxy's server {@link Haproxy#server(int)
     *     s(i+1)}), K = 1 unless the spec's further options say otherwise
     */
    private List<String> coordinatorOptions(ClusterSpec spec, Haproxy haproxy) {
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            servers.add(nodes.get(i) + "=" + Haproxy.BACKEND + "/" + Haproxy.server(i));
        }
        List<String> options = new ArrayList<>(List.of("--haproxy", haproxy.adminSocket().toString(),
            "--haproxy-servers", String.join(",", servers), "--lease", "5s"));
        options.addAll(spec.blade().coordinatorArgs());
        return options;
    }

    /** @return the node ids, {@code n1..nN}, in the order of {@link #backends()} and HAProxy's servers */
    public List<String> nodes() {
        return List.copyOf(nodes);
    }

    /** @return the backends, {@code n1} first */
    public List<DemoServerProcess> backends() {
        return List.copyOf(backends);
    }

    /** @return the load balancer */
    public Haproxy haproxy() {
        return haproxy;
    }

    /** @return the coordinator, present when the cluster runs Blade */
    public Optional<CoordinatorProcess> coordinator() {
        return Optional.ofNullable(coordinator);
    }

    /**
     * Stops every part that was started, by pid, in reverse order; carries on past a part that fails to stop. Parts
     * that a {@link #start} still running starts afterwards are stopped as they come ({@link StartedParts}).
     */
    @Override
    public void close() {
        started.close();
    }
}
