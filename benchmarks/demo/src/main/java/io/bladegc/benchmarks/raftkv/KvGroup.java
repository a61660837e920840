package io.bladegc.benchmarks.raftkv;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * The Raft group of a key-value store, parsed from the command-line forms {@code --peers n1=host:port,n2=host:port}
 * and {@code --group <uuid>}. Stateless, so thread-safe.
 */
public final class KvGroup {
    /** The group id used when none is given: the same for every store, so peers and clients agree by default. */
    public static final UUID DEFAULT_GROUP_ID = UUID.fromString("6b760000-626c-6164-652d-6b7673746f72");

    private KvGroup() {
    }

    /**
     * @param peers   {@code id=host:port} entries separated by commas, at least one, ids unique
     * @param groupId the group's id, or null for {@link #DEFAULT_GROUP_ID}
     * @return the group
     * @throws IllegalArgumentException naming the malformed entry or group id
     */
    public static RaftGroup parse(String peers, String groupId) {
        UUID uuid;
        try {
            uuid = groupId == null ? DEFAULT_GROUP_ID : UUID.fromString(groupId);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--group " + groupId + " is not a UUID");
        }
        List<RaftPeer> list = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (String entry : peers.split(",", -1)) {
            int eq = entry.indexOf('=');
            int colon = entry.lastIndexOf(':');
            if (eq <= 0 || colon <= eq + 1 || colon == entry.length() - 1) {
                throw new IllegalArgumentException("--peers entry '" + entry + "' is not id=host:port");
            }
            String id = entry.substring(0, eq);
            port(entry.substring(colon + 1), entry);
            if (!ids.add(id)) {
                throw new IllegalArgumentException("--peers names " + id + " twice");
            }
            list.add(RaftPeer.newBuilder().setId(id).setAddress(entry.substring(eq + 1)).build());
        }
        return RaftGroup.valueOf(RaftGroupId.valueOf(uuid), list);
    }

    /**
     * @param group a group from {@link #parse}
     * @param id    a peer's id
     * @return that peer's port
     * @throws IllegalArgumentException if the group has no such peer
     */
    public static int portOf(RaftGroup group, RaftPeerId id) {
        RaftPeer peer = group.getPeer(id);
        if (peer == null) {
            throw new IllegalArgumentException("--id " + id + " is not among --peers " + group.getPeers());
        }
        String address = peer.getAddress();
        return port(address.substring(address.lastIndexOf(':') + 1), address);
    }

    private static int port(String text, String entry) {
        try {
            int port = Integer.parseInt(text);
            if (port > 0 && port < 65536) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--peers entry '" + entry + "' has no valid port");
    }
}
