package io.bladegc.benchmarks.suite.raftkv;

import io.bladegc.benchmarks.raftkv.KvClient;
import io.bladegc.benchmarks.raftkv.KvGroup;
import io.bladegc.benchmarks.raftkv.KvServer;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.testkit.ChildProcess;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;

/**
 * Three fresh {@link KvServer} peers of one arm on free loopback ports, one child JVM each (output and GC log in
 * {@code <logDir>/<peer>/}, Raft storage in {@code <logDir>/<peer>/storage}), started with the arm's flags and the
 * workload's {@code --garbage}, and preloaded with the workload's keys. {@link #close} stops every peer by pid, also
 * one started before a later one failed. Not thread-safe.
 */
public final class RaftKvCluster implements AutoCloseable {
    /**
     * How the peers stamp {@code java.util.logging} lines (Blade's): the time of day to the millisecond, as
     * slf4j-simple stamps Ratis's, so that {@link RaftKvLeadership} can time both.
     */
    static final String LOG_FORMAT = "-Djava.util.logging.SimpleFormatter.format="
        + "%1$tH:%1$tM:%1$tS.%1$tL %4$s %5$s%6$s%n";
    private static final String[] PEER_IDS = {"n1", "n2", "n3"};
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    /** One peer: its id, process, output (stdout and stderr) and GC log. */
    public record Peer(String id, ChildProcess process, Path output, Path gcLog) {
    }

    private final RaftGroup group;
    private final List<Peer> peers = new ArrayList<>();

    private RaftKvCluster(RaftGroup group) {
        this.group = group;
    }

    /**
     * Starts the peers and waits until each said it is ready.
     *
     * @param arm      the peers' JVM, flags and Blade mode
     * @param id       names the children ({@code <id>-n1}, ...)
     * @param agentJar the agent, for an arm with Blade
     * @param workload what the peers run besides the store ({@code --garbage})
     * @param logDir   where each peer's directory goes
     * @param stop     holds the cluster while it is started, for a shutdown meanwhile; the caller releases it
     * @return the started cluster, to be closed by the caller
     * @throws Exception when a peer does not start: the ones started are stopped
     */
    public static RaftKvCluster start(Arm arm, String id, Path agentJar, RaftKvWorkload workload, Path logDir,
                                      StopOnExit stop) throws Exception {
        String spec = peerSpec();
        RaftKvCluster c = stop.hold(new RaftKvCluster(KvGroup.parse(spec, null)));
        try {
            for (RaftPeer peer : c.group.getPeers()) {
                String peerId = peer.getId().toString();
                Path dir = logDir.resolve(peerId);
                Files.createDirectories(dir.resolve("storage"));
                List<String> command = new ArrayList<>(List.of(arm.java().toString()));
                command.addAll(arm.serverFlags(agentJar, dir));
                command.addAll(List.of(LOG_FORMAT, "-cp", System.getProperty("java.class.path"),
                    KvServer.class.getName(), "--id", peerId, "--peers", spec, "--storage",
                    dir.resolve("storage").toString()));
                if (workload.garbage() > 0) {
                    command.addAll(List.of("--garbage", Integer.toString(workload.garbage())));
                }
                Path output = dir.resolve("server.log");
                ChildProcess child = ChildProcess.start(id + "-" + peerId, command, output, output);
                c.peers.add(new Peer(peerId, child, output, dir.resolve("gc-" + child.pid() + ".log")));
            }
            for (Peer p : c.peers) {
                p.process().awaitReady(() -> Files.readString(p.output()).contains("kv ready:"), READY_TIMEOUT,
                    p.id() + "'s \"kv ready\"");
            }
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    /** @return the store's group */
    public RaftGroup group() {
        return group;
    }

    /** @return the peers, in id order */
    public List<Peer> peers() {
        return List.copyOf(peers);
    }

    /**
     * Preloads the workload's keys (one {@code PRELOAD} command).
     *
     * @return how long it took, seconds
     * @throws IllegalStateException when the store then holds another number of keys
     */
    public double preload(RaftKvWorkload workload) throws Exception {
        long t = System.nanoTime();
        try (KvClient kv = KvClient.connect(group, Duration.ofSeconds(60), KvClient.DEFAULT_ATTEMPTS)) {
            int size = kv.preload(workload.keys(), RaftKvWorkload.VALUE_BYTES);
            if (size != workload.keys()) {
                throw new IllegalStateException("preloaded " + workload.keys() + " keys, the store holds " + size);
            }
        }
        return (System.nanoTime() - t) / 1e9;
    }

    /** @return why the cluster is not whole (peers that exited, with where their output is), null when it is */
    public String exited() {
        String failure = null;
        for (Peer p : peers) {
            if (!p.process().isAlive()) {
                failure = (failure == null ? "" : failure + "; ") + "peer " + p.id() + " exited during the run"
                    + " (see " + p.output() + ")";
            }
        }
        return failure;
    }

    /** Stops every peer by pid. */
    @Override
    public void close() throws InterruptedException {
        for (Peer p : peers) {
            p.process().close();
        }
    }

    /** @return {@code n1=127.0.0.1:<port>,...} on free loopback ports */
    private static String peerSpec() throws IOException {
        int[] ports = FreePorts.take(PEER_IDS.length);
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < ports.length; i++) {
            entries.add(PEER_IDS[i] + "=127.0.0.1:" + ports[i]);
        }
        return String.join(",", entries);
    }
}
