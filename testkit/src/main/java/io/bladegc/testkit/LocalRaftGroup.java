package io.bladegc.testkit;

import io.bladegc.testkit.FreePorts;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.util.TimeDuration;

/**
 * Real Ratis servers in this JVM, one per peer ({@code n1}, {@code n2}, ...), gRPC on free loopback ports, storage
 * under a directory, each peer running the state machines the caller gives: a peer can be killed, restarted from its
 * storage, or restarted with its storage wiped. Closing stops every server. The caller brings Ratis (ratis-server,
 * ratis-grpc) on its own class path. Not thread-safe: one test owns it.
 */
public final class LocalRaftGroup implements AutoCloseable {
    private final Path dir;
    private final RaftGroup group;
    private final BiFunction<RaftGroup, RaftPeerId, StateMachine.Registry> registries;
    private final Map<RaftPeerId, RaftServer> running = new LinkedHashMap<>();

    /**
     * @param dir        storage, one directory per peer below it
     * @param peers      how many peers
     * @param registries each peer's state machines, given the group and the peer
     */
    public LocalRaftGroup(Path dir, int peers, BiFunction<RaftGroup, RaftPeerId, StateMachine.Registry> registries)
        throws IOException {
        this.dir = dir;
        this.registries = registries;
        List<RaftPeer> list = new ArrayList<>();
        int[] free = FreePorts.take(peers);
        for (int i = 1; i <= peers; i++) {
            list.add(RaftPeer.newBuilder().setId("n" + i).setAddress("127.0.0.1:" + free[i - 1]).build());
        }
        group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()), list);
    }

    /** @return the group: its id and its peers */
    public RaftGroup group() {
        return group;
    }

    /** Properties for servers and clients: gRPC, elections within 150-300 ms, snapshots only when asked for. */
    public RaftProperties properties(RaftPeer peer) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(150, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, false);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        if (peer != null) {
            GrpcConfigKeys.Server.setPort(p, Integer.parseInt(peer.getAddress().split(":")[1]));
            RaftServerConfigKeys.setStorageDir(p, List.of(storage(peer.getId()).toFile()));
        }
        return p;
    }

    /** Starts every peer. */
    public void startAll() throws IOException {
        for (RaftPeer p : group.getPeers()) {
            start(p.getId());
        }
    }

    /** Starts peer {@code id} from its storage (formatted if there is none) and returns its server. */
    public RaftServer start(RaftPeerId id) throws IOException {
        RaftPeer peer = group.getPeer(id);
        RaftServer s = RaftServer.newBuilder().setServerId(id).setGroup(group).setProperties(properties(peer))
            .setStateMachineRegistry(registries.apply(group, id)).setOption(RaftStorage.StartupOption.RECOVER).build();
        s.start();
        running.put(id, s);
        return s;
    }

    /** @return the running server of peer {@code id}, or null */
    public RaftServer server(RaftPeerId id) {
        return running.get(id);
    }

    /** @return the running servers */
    public List<RaftServer> servers() {
        return List.copyOf(running.values());
    }

    /** Stops peer {@code id}'s server, keeping its storage; nothing if it is not running. */
    public void kill(RaftPeerId id) throws IOException {
        RaftServer s = running.remove(id);
        if (s != null) {
            s.close();
        }
    }

    /** Restarts a killed peer with its storage wiped: it must learn everything from the others. */
    public RaftServer startEmpty(RaftPeerId id) throws IOException {
        deleteTree(storage(id));
        return start(id);
    }

    /** @return the leader of {@code groupId} among the running servers, waiting up to 10 s for one */
    public RaftServer leader(RaftGroupId groupId) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (RaftServer s : running.values()) {
                if (s.getDivision(groupId).getInfo().isLeaderReady()) {
                    return s;
                }
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no leader of " + groupId + " within 10 s");
    }

    private Path storage(RaftPeerId id) {
        return dir.resolve(id.toString());
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (RaftServer s : List.copyOf(running.values())) {
            try {
                s.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        running.clear();
        if (first != null) {
            throw first;
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
