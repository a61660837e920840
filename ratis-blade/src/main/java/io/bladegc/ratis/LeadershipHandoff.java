package io.bladegc.ratis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * What a peer does with its leaderships before a collection of its own: hands off every group it leads, but Blade's
 * slot group, to a caught-up follower ({@link #handOff}). Speaks to the local {@link RaftServer} directly, no network
 * between.
 *
 * <p>Ratis' {@code transferLeadership} waits until the chosen follower has caught up with the leader's log, then
 * has it start an election at once; the old leader steps down when the new one wins. The followers asked, in turn, are
 * the peers that are live members of the slot ledger and not collecting: ones not queued to collect first, then
 * caught-up ones (a lagging follower, one without every entry a majority holds, would keep the transfer waiting for
 * it), and among those the one that collected most recently first (the least likely to need a collection soon, BLADE
 * section 4.2).
 *
 * <p>Not thread-safe: one collection at a time (the handler's worker thread); {@link #leadsAny()} from any thread.
 */
final class LeadershipHandoff {
    /** The longest wait for the chosen follower to hold the leader's last entry before the transfer is asked for. */
    private static final long CATCH_UP_MILLIS = 200;
    private static final long CATCH_UP_POLL_MILLIS = 2;
    /** The pause before the candidates are asked again, when none took over. */
    private static final long ROUND_PAUSE_MILLIS = 50;

    private final RaftServer server;
    private final RaftGroupId slotGroup;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong(1);

    /**
     * @param server    the local server
     * @param slotGroup Blade's slot group, never handed off (its leader pausing delays only Blade's own calls, while
     *                  a transfer costs as much as the application group's), or {@code null}
     */
    LeadershipHandoff(RaftServer server, RaftGroupId slotGroup) {
        this.server = server;
        this.slotGroup = slotGroup;
    }

    /** @return the shortest election timeout of this server: a leader silent this long may face an election */
    long electionTimeoutMinNanos() {
        return RaftServerConfigKeys.Rpc.timeoutMin(server.getProperties()).toLong(TimeUnit.NANOSECONDS);
    }

    /** @return the groups on this server this peer leads now, but the slot group */
    List<RaftGroupId> ledGroups() throws IOException {
        List<RaftGroupId> led = new ArrayList<>();
        for (RaftGroupId g : server.getGroupIds()) {
            if (!g.equals(slotGroup) && server.getDivision(g).getInfo().isLeader()) {
                led.add(g);
            }
        }
        return led;
    }

    /**
     * @return whether this peer leads a group on this server, but the slot group; thread-safe (reads the divisions'
     *     roles only), without allocating: the heap watcher asks at every sample
     */
    boolean leadsAny() {
        try {
            for (RaftGroupId g : server.getGroupIds()) {
                if (!g.equals(slotGroup) && server.getDivision(g).getInfo().isLeader()) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false; // the group was just removed from this server: it leads nothing there
        }
        return false;
    }

    /**
     * Hands leadership of {@code group} to another peer. The candidates ({@link #successors}) are asked in turn, each
     * getting an equal share of the time left; when none took over, they are asked again (after
     * {@value #ROUND_PAUSE_MILLIS} ms) until the timeout: a transfer can fail for a moment only (the transferee's
     * election rejected because an entry the leader had taken in reached the others first; the leader, re-elected, not
     * yet ready). A follower this leader has not heard from for an election timeout is not asked that round
     * ({@link #silentFollowers}): it may be dead, and Ratis refuses every write while a transfer waits for it (a
     * follower killed just before a hand-off, still a member of the slot ledger, was asked first and clients were
     * refused for seconds). Ends early when another peer leads the group meanwhile, or when there is nobody to ask,
     * silent or not.
     *
     * @param group     a group this peer leads
     * @param slots     the slot ledger (who is live, who collects or waits to, who collected last), read afresh
     *                  each round: a peer granted meanwhile is not asked
     * @param timeoutMs how long to wait for the new leader, in all
     * @return the new leader, or {@code null} when no candidate took it within the timeout or there was none
     */
    RaftPeerId handOff(RaftGroupId group, SlotClient slots, long timeoutMs) throws IOException {
        RaftServer.Division division = server.getDivision(group);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        while (System.nanoTime() < deadline) {
            RaftPeerId leader = division.getInfo().getLeaderId();
            if (leader != null && !leader.equals(server.getId())) {
                return leader;
            }
            if (division.getInfo().isLeaderReady()) {
                Set<RaftPeerId> silent = silentFollowers(division, electionTimeoutMinNanos() / 1_000_000);
                List<RaftPeerId> candidates = successors(server.getId(), division.getGroup().getPeers(), slots.view(),
                    followerMatchIndices(division), division.getRaftLog().getLastCommittedIndex(), silent);
                if (candidates.isEmpty() && silent.isEmpty()) {
                    return null; // no other live member that is not collecting: nobody to ask
                }
                for (int i = 0; i < candidates.size() && division.getInfo().isLeader(); i++) {
                    // an equal share of what is left: a lagging or unreachable first choice leaves time for the next
                    long share = (deadline - System.nanoTime()) / 1_000_000 / (candidates.size() - i);
                    if (share <= 0) {
                        return null;
                    }
                    RaftPeerId target = candidates.get(i);
                    awaitCaughtUp(division, target, Math.min(share / 2, CATCH_UP_MILLIS));
                    RaftClientReply reply = server.transferLeadership(new TransferLeadershipRequest(clientId,
                        server.getId(), group, callIds.getAndIncrement(), target, share));
                    if (reply.isSuccess()) {
                        return target;
                    }
                }
            }
            try {
                TimeUnit.MILLISECONDS.sleep(ROUND_PAUSE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while handing off " + group, e);
            }
        }
        return null;
    }

    /**
     * Waits (at most {@code boundMillis}) until {@code target} holds the leader's last entry. Ratis' transfer waits for
     * that too, but refuses every write meanwhile ({@code LeaderSteppingDownException}, which clients see): waiting
     * here first leaves only the transferee's election inside the transfer (with a lagging follower, 5-11 refused
     * writes per transfer at 100 writes/s became 0-2 in a measurement; the wait cost 29-64 ms).
     */
    private static void awaitCaughtUp(RaftServer.Division division, RaftPeerId target, long boundMillis)
            throws IOException {
        long deadline = System.nanoTime() + boundMillis * 1_000_000;
        while (System.nanoTime() < deadline) {
            TermIndex last = division.getRaftLog().getLastEntryTermIndex();
            Long match = followerMatchIndices(division).get(target);
            if (last == null || match == null || match >= last.getIndex()) {
                return;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(CATCH_UP_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while " + target + " catches up", e);
            }
        }
    }

    /**
     * @return the followers this leader has had no answer from for longer than {@code boundMillis} (Ratis' last
     *         response time per follower; a new leader counts each one as silent until its first answer); empty when
     *         it no longer leads
     */
    static Set<RaftPeerId> silentFollowers(RaftServer.Division division, long boundMillis) {
        Set<RaftPeerId> silent = new HashSet<>();
        for (RaftProtos.ServerRpcProto f : division.getInfo().getRoleInfoProto().getLeaderInfo()
                .getFollowerInfoList()) {
            if (f.getLastRpcElapsedTimeMs() > boundMillis) {
                silent.add(RaftPeerId.valueOf(f.getId().getId()));
            }
        }
        return silent;
    }

    /**
     * The peers to ask, in order: other peers that are live members, not collecting and not {@code silent}; those
     * not waiting in the ledger's queue for a collection of their own before those that are (a queued peer, made
     * leader, hands the leadership straight back before it collects: two hand-offs for one collection); then
     * caught-up ones (match index at least {@code commitIndex}, or not known) before lagging ones; within each, the one
     * that collected most recently first.
     */
    static List<RaftPeerId> successors(RaftPeerId self, Iterable<RaftPeer> peers, SlotGroupView view,
                                       Map<RaftPeerId, Long> matchIndex, long commitIndex, Set<RaftPeerId> silent) {
        Set<String> members = Set.copyOf(view.slots().members());
        Set<String> collecting = new HashSet<>();
        view.slots().collecting().forEach(g -> collecting.add(g.node()));
        Set<String> queued = new HashSet<>();
        view.slots().queue().forEach(q -> queued.add(q.node()));
        List<RaftPeerId> out = new ArrayList<>();
        for (RaftPeer p : peers) {
            String id = p.getId().toString();
            if (!p.getId().equals(self) && members.contains(id) && !collecting.contains(id)
                    && !silent.contains(p.getId())) {
                out.add(p.getId());
            }
        }
        out.sort(Comparator.comparing((RaftPeerId p) -> queued.contains(p.toString()))
            .thenComparing(p -> matchIndex.getOrDefault(p, commitIndex) < commitIndex)
            .thenComparing(p -> view.lastCollected().getOrDefault(p.toString(), Long.MIN_VALUE),
                Comparator.reverseOrder()));
        return out;
    }

    /** @return each follower's match index as this leader knows it; empty when it no longer leads or they changed */
    static Map<RaftPeerId, Long> followerMatchIndices(RaftServer.Division division) {
        List<RaftProtos.ServerRpcProto> followers = division.getInfo().getRoleInfoProto().getLeaderInfo()
            .getFollowerInfoList();
        long[] match = division.getInfo().getFollowerMatchIndices(); // the same log appenders, in the same order
        if (match == null || match.length != followers.size()) { // null: no longer leader
            return Map.of();
        }
        Map<RaftPeerId, Long> out = new HashMap<>();
        for (int i = 0; i < match.length; i++) {
            out.put(RaftPeerId.valueOf(followers.get(i).getId().getId()), match[i]);
        }
        return out;
    }
}
