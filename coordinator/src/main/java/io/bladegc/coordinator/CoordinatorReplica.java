package io.bladegc.coordinator;

import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.coordinator.slots.ReplicatedLedger;
import io.bladegc.ratis.SlotClient;
import io.bladegc.ratis.SlotStateMachine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.TimeDuration;

/**
 * One replica of a replicated coordinator ({@code --peers}, {@code --id}, {@code --raft-dir}): a Ratis server whose
 * single group holds the slot ledger ({@link SlotStateMachine}, with the coordinator's policy), and the
 * {@link ReplicatedLedger} the slot service runs on. Only the replica that is the group's ready leader answers nodes;
 * the others answer {@code 503 NOT_LEADER}, and a node's agent, which knows every replica, asks the next one. Every
 * replica must be given the same policy ({@code --k}, {@code --lease}, ...) and the same {@code --peers}.
 *
 * <p>Elections: 300-600 ms without a leader. Snapshots every 10,000 entries (the leader ticks ten times a second),
 * the log purged up to them. Stateless.
 */
final class CoordinatorReplica {
    /** The slot group's id: one coordinator group per set of replicas. */
    static final RaftGroupId GROUP = RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes("blade-coordinator-slots".getBytes(StandardCharsets.UTF_8)));
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);

    /**
     * The replication settings, checked.
     *
     * @param self  this replica
     * @param group every replica
     * @param dir   this replica's storage
     */
    record Settings(RaftPeerId self, RaftGroup group, Path dir) {
    }

    /**
     * @param peers   {@code --peers}: {@code id=host:port,...}, {@code null} or {@code none} for standalone
     * @param id      {@code --id}, or {@code null}
     * @param raftDir {@code --raft-dir}: the directory below which this replica keeps a directory of its own
     * @return the settings, or {@code null} when {@code --peers} is not given (standalone)
     * @throws IllegalArgumentException naming the option when the replication options are incomplete or malformed
     */
    static Settings parse(String peers, String id, String raftDir) {
        if (peers == null || peers.isBlank() || peers.equals("none")) {
            if (id != null) {
                throw new IllegalArgumentException("--id needs --peers (the replicas)");
            }
            return null;
        }
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("--peers needs --id (which of them this replica is)");
        }
        List<RaftPeer> list = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (String entry : peers.split(",")) {
            String e = entry.trim();
            int eq = e.indexOf('=');
            int colon = e.lastIndexOf(':');
            if (eq <= 0 || colon < eq + 2 || colon == e.length() - 1) {
                throw new IllegalArgumentException("--peers: '" + e + "' is not id=host:port");
            }
            String peerId = e.substring(0, eq);
            int port;
            try {
                port = Integer.parseInt(e.substring(colon + 1));
            } catch (NumberFormatException x) {
                port = -1;
            }
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("--peers: '" + e + "' has no valid port");
            }
            if (!ids.add(peerId)) {
                throw new IllegalArgumentException("--peers: id '" + peerId + "' given twice");
            }
            list.add(RaftPeer.newBuilder().setId(peerId).setAddress(e.substring(eq + 1)).build());
        }
        if (!ids.contains(id.trim())) {
            throw new IllegalArgumentException("--id " + id + " is not one of --peers " + ids);
        }
        Path dir = Path.of(raftDir).resolve(id.trim());
        return new Settings(RaftPeerId.valueOf(id.trim()), RaftGroup.valueOf(GROUP, list), dir);
    }

    private CoordinatorReplica() {
    }

    /**
     * Starts this replica's Ratis server (recovering its log and snapshot from {@code settings.dir()}).
     *
     * @return the ledger the slot service runs on; closing it stops the server
     */
    static ReplicatedLedger start(Settings settings, SlotPolicy policy) throws IOException {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(600, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, 10_000);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.setStorageDir(p, List.of(settings.dir().toFile()));
        String address = settings.group().getPeer(settings.self()).getAddress();
        GrpcConfigKeys.Server.setPort(p, Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
        SlotStateMachine machine = new SlotStateMachine(policy);
        RaftServer server = RaftServer.newBuilder().setServerId(settings.self()).setGroup(settings.group())
            .setProperties(p).setStateMachine(machine).setOption(RaftStorage.StartupOption.RECOVER).build();
        server.start();
        RaftServer.Division division = server.getDivision(GROUP);
        SlotClient client = SlotClient.connect(settings.group(), new RaftProperties(), CALL_TIMEOUT);
        return new ReplicatedLedger(client, machine, () -> division.getInfo().isLeaderReady(),
            () -> describe(settings.self(), division.getInfo()), () -> {
                client.close();
                server.close();
            });
    }

    private static String describe(RaftPeerId self, DivisionInfo info) {
        return "replica " + self + " (" + info.getCurrentRole() + ", term " + info.getCurrentTerm() + "), leader "
            + info.getLeaderId();
    }

    /** @return for the start-up line: this replica, the group, the storage */
    static String summary(Settings settings) {
        List<String> peers = new ArrayList<>();
        settings.group().getPeers().forEach(peer -> peers.add(peer.getId() + "=" + peer.getAddress()));
        peers.sort(null);
        return "replicated: replica " + settings.self() + " of " + String.join(",", peers) + ", raft-dir "
            + settings.dir();
    }
}
