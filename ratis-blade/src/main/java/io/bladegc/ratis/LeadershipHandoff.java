package io.bladegc.ratis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;

/**
 * What a peer does with its leaderships before a collection of its own: hands off every group it leads to a caught-up
 * follower ({@link #handOff}). Speaks to the local {@link RaftServer} directly, no network between.
 *
 * <p>Ratis' {@code transferLeadership} waits until the chosen follower has caught up with the leader's log, then
 * has it start an election at once; the old leader steps down when the new one wins. The follower chosen is the one
 * that collected most recently (the least likely to need a collection soon, BLADE section 4.2), among the peers that
 * are live members of the slot ledger and not collecting.
 *
 * <p>Not thread-safe: one collection at a time (the handler's worker thread).
 */
final class LeadershipHandoff {
    private final RaftServer server;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong(1);

    LeadershipHandoff(RaftServer server) {
        this.server = server;
    }

    /** @return the shortest election timeout of this server: a leader silent this long may face an election */
    long electionTimeoutMinNanos() {
        return RaftServerConfigKeys.Rpc.timeoutMin(server.getProperties()).toLong(TimeUnit.NANOSECONDS);
    }

    /** @return the groups on this server this peer leads now */
    List<RaftGroupId> ledGroups() throws IOException {
        List<RaftGroupId> led = new ArrayList<>();
        for (RaftGroupId g : server.getGroupIds()) {
            if (server.getDivision(g).getInfo().isLeader()) {
                led.add(g);
            }
        }
        return led;
    }

    /**
     * Hands leadership of {@code group} to another peer.
     *
     * @param group     a group this peer leads
     * @param view      the slot ledger (who is live, who collects, who collected last)
     * @param timeoutMs how long to wait for the new leader, in all; each candidate in turn gets an equal share of
     *                  what is left
     * @return the new leader, or {@code null} when no candidate took it within the timeout
     */
    RaftPeerId handOff(RaftGroupId group, SlotGroupView view, long timeoutMs) throws IOException {
        List<RaftPeerId> candidates = candidates(server.getDivision(group).getGroup().getPeers(), view);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        for (int i = 0; i < candidates.size(); i++) {
            // an equal share of what is left: a lagging or unreachable first choice leaves time for the next
            long share = (deadline - System.nanoTime()) / 1_000_000 / (candidates.size() - i);
            if (share <= 0) {
                break;
            }
            RaftPeerId target = candidates.get(i);
            RaftClientReply reply = server.transferLeadership(new TransferLeadershipRequest(clientId, server.getId(),
                group, callIds.getAndIncrement(), target, share));
            if (reply.isSuccess()) {
                return target;
            }
        }
        return null;
    }

    /** Other peers that are live members and not collecting, the one that collected most recently first. */
    private List<RaftPeerId> candidates(Iterable<RaftPeer> peers, SlotGroupView view) {
        Set<String> members = Set.copyOf(view.slots().members());
        Set<String> collecting = new HashSet<>();
        view.slots().collecting().forEach(g -> collecting.add(g.node()));
        List<RaftPeerId> out = new ArrayList<>();
        for (RaftPeer p : peers) {
            String id = p.getId().toString();
            if (!p.getId().equals(server.getId()) && members.contains(id) && !collecting.contains(id)) {
                out.add(p.getId());
            }
        }
        out.sort(Comparator.comparingLong(
            (RaftPeerId p) -> view.lastCollected().getOrDefault(p.toString(), Long.MIN_VALUE)).reversed());
        return out;
    }
}
