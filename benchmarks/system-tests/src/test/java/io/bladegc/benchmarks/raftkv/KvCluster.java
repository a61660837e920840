package io.bladegc.benchmarks.raftkv;

import io.bladegc.benchmarks.DirectoryTree;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.testkit.ChildProcess;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * Three {@link KvServer} peers in child JVMs on free loopback ports, for integration tests. Each runs with the Blade
 * agent ({@code bladegc.agent.jar}, set by failsafe), a small young generation ({@code -Xmn40m}: a young collection
 * every second or so under the tests' writers) in a heap with room for the live set ({@code -Xmx256m}), one Parallel
 * GC thread, Raft log segments of 4 MiB and replies kept 5 s for retries (so that what Ratis keeps in memory stays
 * small) and its storage under
 * {@code target/raftkv/<test>/<id>-storage}; its stdout and stderr go to {@code target/raftkv/<test>/<id>.log}
 * ({@code <id>-restart<k>.log} after the k-th restart). A peer counts as started once it prints {@code kv ready},
 * within {@link #READY_TIMEOUT}; the cluster, once a linearizable read succeeds.
 *
 * <p>{@link #close()} stops every peer still running (SIGTERM, then SIGKILL), also when starting failed half way.
 * Not thread-safe: drive it from one thread (clients of {@link #group()} may run on any).
 */
final class KvCluster implements AutoCloseable {
    /** How long a peer may take to print its ready line. */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final RaftGroup group;
    private final List<String> serverArgs;
    private final Map<RaftPeerId, ChildProcess> peers = new LinkedHashMap<>();
    private final Map<RaftPeerId, Integer> restarts = new LinkedHashMap<>();

    private KvCluster(Path dir, RaftGroup group, List<String> serverArgs) {
        this.dir = dir;
        this.group = group;
        this.serverArgs = serverArgs;
    }

    /**
     * Starts three fresh peers (the test's directory is emptied first) and waits until all are ready.
     *
     * @param test       the test's name, for the directory
     * @param serverArgs further {@link KvServer} arguments for every peer, e.g. {@code --snapshot-every 100}
     */
    static KvCluster start(String test, String... serverArgs) throws Exception {
        Path dir = Path.of("target", "raftkv", test).toAbsolutePath();
        DirectoryTree.delete(dir);
        Files.createDirectories(dir);
        List<String> entries = new ArrayList<>();
        int[] free = FreePorts.take(3);
        for (int i = 1; i <= 3; i++) {
            entries.add("n" + i + "=127.0.0.1:" + free[i - 1]);
        }
        KvCluster cluster = new KvCluster(dir, KvGroup.parse(String.join(",", entries), null), List.of(serverArgs));
        try {
            for (RaftPeer peer : cluster.group.getPeers()) {
                cluster.launch(peer.getId(), peer.getId() + ".log");
            }
            for (RaftPeer peer : cluster.group.getPeers()) {
                cluster.awaitReady(peer.getId());
            }
            cluster.awaitServing();
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Waits until a linearizable read succeeds, so the group has a leader that serves (Ratis clients of this JVM
     * then address it first).
     */
    private void awaitServing() throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        try (KvClient client = KvClient.connect(group, Duration.ofSeconds(1), 3)) {
            while (true) {
                try {
                    client.size();
                    return;
                } catch (IOException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the store did not serve within "
                            + READY_TIMEOUT.toSeconds() + " s; see the logs in " + dir, e);
                    }
                }
            }
        }
    }

    /** @return the store's group, for {@link KvClient#connect} */
    RaftGroup group() {
        return group;
    }

    /** @return the peers' ids */
    List<RaftPeerId> ids() {
        return List.copyOf(peers.keySet());
    }

    /** @return the {@code --peers} argument of this cluster */
    private String peersArgument() {
        return group.getPeers().stream().map(p -> p.getId() + "=" + p.getAddress()).collect(Collectors.joining(","));
    }

    /** @return the process id of peer {@code id} as it runs now */
    long pid(RaftPeerId id) {
        return peers.get(id).pid();
    }

    /** @return the log (stdout and stderr) of peer {@code id} as it runs now */
    Path log(RaftPeerId id) {
        return peers.get(id).stderr();
    }

    /** Kills peer {@code id} with SIGKILL and waits until it is gone. */
    void kill(RaftPeerId id) throws Exception {
        ChildProcess peer = peers.get(id);
        ProcessHandle.of(peer.pid()).ifPresent(ProcessHandle::destroyForcibly);
        ProcessHandle.of(peer.pid()).ifPresent(p -> p.onExit().join());
    }

    /**
     * Starts peer {@code id} again, after {@link #kill}, and waits until it is ready.
     *
     * @param keepStorage false to delete its storage first, so it rejoins empty and must catch up from the others
     */
    void restart(RaftPeerId id, boolean keepStorage) throws Exception {
        if (peers.get(id).isAlive()) {
            throw new IllegalStateException(id + " is still running");
        }
        peers.remove(id).close();
        if (!keepStorage) {
            DirectoryTree.delete(storage(id));
        }
        int k = restarts.merge(id, 1, Integer::sum);
        launch(id, id + "-restart" + k + ".log");
        awaitReady(id);
    }

    private void launch(RaftPeerId id, String logName) throws IOException {
        List<String> command = new ArrayList<>(List.of(ClusterSpec.currentJava().toString(),
            "-javaagent:" + requiredProperty("bladegc.agent.jar"),
            // MetaspaceSize as docs/architecture.md advises: a peer crossing the default (about 21 MB; Ratis, gRPC, and the
            // agent's Byte Buddy when it patches Ratis) runs a full "Metadata GC Threshold" collection of its own,
            // which Blade cannot schedule (CI once saw two such 200 ms pauses overlap another peer's collection)
            "-Xmx256m", "-Xmn40m", "-XX:MetaspaceSize=64m", "-XX:+UseParallelGC", "-XX:ParallelGCThreads=1",
            GcPauses.flag(dir.resolve(logName.replace(".log", "-gc.log"))),
            "-cp", System.getProperty("java.class.path"),
            KvServer.class.getName(),
            "--id", id.toString(), "--peers", peersArgument(), "--storage", storage(id).toString()));
        // The live set grew under RaftInvariantsIT's writers by 80 MiB in 42 s (a peer's live histogram): Ratis' retry
        // cache keeps every write's reply for 60 s, and a put's reply is the 2 KiB value it replaced; its log cache
        // keeps up to seven segments of 32 MiB. In 128 MiB heaps the old generation then filled every few seconds and
        // the peers took full collections of 200-450 ms back to back, more than three peers' young collections can be
        // kept clear of: that test failed on such overlaps in 4 of 5 one-minute runs (3 of 3 with a 256 MiB heap and
        // 4 MiB segments alone).
        command.addAll(List.of("--log-segment", "4", "--retry-cache-seconds", "5"));
        command.addAll(serverArgs);
        Path log = dir.resolve(logName);
        peers.put(id, ChildProcess.start("kv peer " + id, command, log, log));
    }

    /** @return the JVM's own record of its pauses, of the first start of {@code id} */
    Path gcLog(RaftPeerId id) {
        return dir.resolve(id + "-gc.log");
    }

    private void awaitReady(RaftPeerId id) throws InterruptedException {
        ChildProcess peer = peers.get(id);
        peer.awaitReady(() -> Files.readString(peer.stderr()).contains("kv ready: " + id + " on"), READY_TIMEOUT,
            "the ready line of " + id);
    }

    private Path storage(RaftPeerId id) {
        return dir.resolve(id + "-storage");
    }

    /**
     * Asks the running peers for their role until one says it leads.
     *
     * @return the leader's id
     * @throws IllegalStateException when no peer leads within {@link #READY_TIMEOUT}
     */
    RaftPeerId leader() throws Exception {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(1, TimeUnit.SECONDS));
        try (RaftClient probe = RaftClient.newBuilder().setRaftGroup(group).setProperties(properties)
                .setRetryPolicy(RetryPolicies.noRetry()).build()) {
            while (System.nanoTime() < deadline) {
                for (Map.Entry<RaftPeerId, ChildProcess> peer : peers.entrySet()) {
                    if (peer.getValue().isAlive() && leads(probe, peer.getKey())) {
                        return peer.getKey();
                    }
                }
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("no peer leads after " + READY_TIMEOUT.toSeconds() + " s");
    }

    private boolean leads(RaftClient probe, RaftPeerId id) {
        try {
            GroupInfoReply info = probe.getGroupManagementApi(id).info(group.getGroupId());
            return info.getRoleInfoProto().getRole() == RaftPeerRole.LEADER;
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops every peer still running: SIGTERM, then SIGKILL after 10 s; all of them, even when interrupted. */
    @Override
    public void close() throws InterruptedException {
        InterruptedException interrupted = null;
        for (ChildProcess peer : peers.values()) {
            try {
                peer.close();
            } catch (InterruptedException e) {
                interrupted = e;
            }
        }
        if (interrupted != null) {
            throw interrupted;
        }
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set; run through Maven (failsafe)");
        }
        return value;
    }
}
