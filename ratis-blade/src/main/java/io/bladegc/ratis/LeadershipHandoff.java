package io.bladegc.ratis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * has it start an election at once; the old leader steps down at its vote request, and Ratis answers the transfer
 * once the old leader hears from the new one. A hand-off here ends at the step-down. The followers asked, in turn, are
 * the peers that are live members of the slot ledger and not collecting: ones not queued to collect first, then
 * caught-up ones (a lagging follower, one without every entry a majority holds, would keep the transfer waiting for
 * it), and among those the one that collected most recently first (the least likely to need a collection soon, BLADE
 * section 4.2).
 *
 * <p>Not thread-safe: one collection at a time (the handler's worker thread); {@link #leadsAny()} from any thread.
 */
final class LeadershipHandoff {
    /**
     * The longest wait for the chosen follower to hold the entries the leader had when the wait began, before the
     * transfer is asked for.
     */
    private static final long CATCH_UP_MILLIS = 200;
    private static final long CATCH_UP_POLL_MILLIS = 2;
    /** The pause before the candidates are asked again, when none took over. */
    private static final long ROUND_PAUSE_MILLIS = 50;
    /**
     * How often a leader not ready yet (its term's first entry not yet applied: Ratis refuses a transfer until then)
     * looks again. A peer handed the leadership shortly before its own collection came waits for that, 100-400 ms on
     * a loaded machine in RaftInvariantsIT, which rounds of {@value #ROUND_PAUSE_MILLIS} ms rounded up.
     */
    private static final long READY_POLL_MILLIS = 5;
    /** How often a transfer under way looks whether this peer still leads. */
    private static final long STEP_DOWN_POLL_MILLIS = 1;
    /** How long past a transfer's timeout its answer is waited for. */
    private static final long REPLY_GRACE_MILLIS = 1_000;
    /** How often a peer that stepped down looks whether its successor serves. */
    private static final long READY_LOOK_MILLIS = 1;

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

    /**
     * Waits, at most {@code boundMillis}, until this peer, which no longer leads {@code group}, has applied an entry
     * of a term after {@code termBefore}: the new leader's first entry is committed, so it serves its clients. This
     * is when a hand-off ends for clients (Ratis elects the new leader 7-23 ms after the transfer starts; the new
     * leader's readiness and the clients finding it took up to 4x longer in raft-kv), and this peer's collection
     * starts only then, rather than while the two compete for the cores.
     *
     * @return whether the successor was seen ready within the bound
     */
    boolean awaitSuccessorReady(RaftGroupId group, long termBefore, long boundMillis) throws IOException {
        RaftServer.Division division = server.getDivision(group);
        long deadline = System.nanoTime() + boundMillis * 1_000_000;
        while (true) {
            TermIndex applied = division.getStateMachine().getLastAppliedTermIndex();
            if (applied != null && applied.getTerm() > termBefore && !division.getInfo().isLeader()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            sleep(READY_LOOK_MILLIS, "waiting for the new leader of " + group);
        }
    }

    /** @return the term {@code group} is in on this server */
    long term(RaftGroupId group) throws IOException {
        return server.getDivision(group).getInfo().getCurrentTerm();
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
     * How a hand-off went: to whom, and where its time went.
     *
     * @param steppedDown whether this peer no longer leads the group
     * @param to         the peer it asked to take over, or the leader it knows of when it found itself stepped down
     *                   otherwise; {@code null} when not stepped down, or the next leader is not known yet
     * @param readNanos  reading the slot ledger (who is live, who collects), all rounds
     * @param caughtUp   whether the last follower waited for held those entries before the wait's bound
     * @param catchUpNanos waiting for the chosen followers to hold the entries the leader had when the wait began
     * @param stepDownNanos from asking Ratis to this peer no longer leading (the transferee's election, once it caught
     *                   up with what came meanwhile)
     * @param rounds     how many times the candidates were looked for: more than one when no candidate took over, or
     *                   there was none to ask (every live one silent, or this leader not ready), in a round
     * @param betweenNanos the pauses between rounds
     * @param why        what ended each round that asked nobody or no one took over, e.g. {@code not ready 1, all
     *                   silent 2}; empty when none did
     */
    record Transfer(boolean steppedDown, RaftPeerId to, long readNanos, boolean caughtUp, long catchUpNanos,
                    long stepDownNanos, int rounds, long betweenNanos, String why) {
        static final Transfer NONE = new Transfer(false, null, 0, true, 0, 0, 1, 0, "");

        /**
         * @return e.g. {@code ledger read 2.1 ms, caught up in 3.0 ms, stepped down in 41.7 ms}, and
         *     {@code , 3 rounds 100.2 ms apart in all} when there were more
         */
        String phases() {
            return String.format(Locale.ROOT, "ledger read %.1f ms, %s %.1f ms, stepped down in %.1f ms%s",
                readNanos / 1e6, caughtUp ? "caught up in" : "not caught up after", catchUpNanos / 1e6,
                stepDownNanos / 1e6, rounds <= 1 ? "" : String.format(Locale.ROOT,
                    ", %d rounds %.1f ms apart in all (%s)", rounds, betweenNanos / 1e6, why));
        }
    }

    /**
     * Hands leadership of {@code group} to another peer, and returns as soon as this peer no longer leads it: it
     * stepped down at the transferee's vote request, having granted its vote, so the transferee's election needs
     * nothing more from it, and a pause of this peer costs the group no election. Waiting on until this peer also
     * learns the new leader (Ratis' own transfer reply, at the new leader's first append) added tens to hundreds of
     * milliseconds, over a second for a new leader's first term in a fresh JVM (RaftInvariantsIT, loaded machine:
     * 0.75 s between the step-down and the end of a 2 s hand-off, during which the old leader's JVM collected on its
     * own). The candidates ({@link #successors}) are asked in turn, each getting an equal share of the time left;
     * when none took over, they are asked again (after {@value #ROUND_PAUSE_MILLIS} ms) until the timeout: a transfer
     * can fail for a moment only (the transferee's election rejected because an entry the leader had taken in reached
     * the others first; the leader, re-elected, not yet ready; a leader not ready looks again every
     * {@value #READY_POLL_MILLIS} ms). A follower this leader has not heard from for an
     * election timeout is not asked that round ({@link #silentFollowers}): it may be dead, and Ratis refuses every
     * write while a transfer waits for it (a follower killed just before a hand-off, still a member of the slot
     * ledger, was asked first and clients were refused for seconds). Ends early when this peer no longer leads the
     * group, or when there is nobody to ask, silent or not.
     *
     * @param group     a group this peer leads
     * @param slots     the slot ledger (who is live, who collects or waits to, who collected last), read afresh
     *                  each round: a peer granted meanwhile is not asked
     * @param timeoutMs how long to wait for this peer to step down, in all
     * @return whether this peer stepped down, to whom, and the hand-off's phases; not stepped down when it still leads
     *     after the timeout, or there was no candidate
     */
    Transfer handOff(RaftGroupId group, SlotClient slots, long timeoutMs) throws IOException {
        RaftServer.Division division = server.getDivision(group);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        Phases p = new Phases();
        while (System.nanoTime() < deadline) {
            p.rounds++;
            if (!division.getInfo().isLeader()) { // another peer's election, or a transfer that answered late
                return p.end(true, division.getInfo().getLeaderId());
            }
            if (!division.getInfo().isLeaderReady()) {
                p.notReady++;
            } else {
                Set<RaftPeerId> silent = silentFollowers(division, electionTimeoutMinNanos() / 1_000_000);
                long t = System.nanoTime();
                SlotGroupView view = slots.view();
                p.read += System.nanoTime() - t;
                List<RaftPeerId> candidates = successors(server.getId(), division.getGroup().getPeers(), view,
                    followerMatchIndices(division), division.getRaftLog().getLastCommittedIndex(), silent);
                if (candidates.isEmpty() && silent.isEmpty()) {
                    return Transfer.NONE; // no other live member that is not collecting: nobody to ask
                }
                if (candidates.isEmpty()) {
                    p.allSilent++;
                }
                for (int i = 0; i < candidates.size() && division.getInfo().isLeader(); i++) {
                    // an equal share of what is left: a lagging or unreachable first choice leaves time for the next
                    long share = (deadline - System.nanoTime()) / 1_000_000 / (candidates.size() - i);
                    if (share <= 0) {
                        return p.end(false, null);
                    }
                    RaftPeerId target = candidates.get(i);
                    t = System.nanoTime();
                    p.caughtUp = awaitCaughtUp(division, target, Math.min(share / 2, CATCH_UP_MILLIS));
                    p.catchUp += System.nanoTime() - t;
                    t = System.nanoTime();
                    boolean steppedDown = transfer(division, target, group, share);
                    p.stepDown += System.nanoTime() - t;
                    if (steppedDown) {
                        return p.end(true, target);
                    }
                    p.refused++;
                }
            }
            long t = System.nanoTime();
            sleep(division.getInfo().isLeaderReady() ? ROUND_PAUSE_MILLIS : READY_POLL_MILLIS, "handing off " + group);
            p.between += System.nanoTime() - t;
        }
        return p.end(false, null);
    }

    /** A hand-off's phases as they add up. */
    private static final class Phases {
        long read;
        boolean caughtUp = true;
        long catchUp;
        long stepDown;
        int rounds;
        long between;
        int notReady;
        int allSilent;
        int refused;

        Transfer end(boolean steppedDown, RaftPeerId to) {
            String why = (notReady == 0 ? "" : ", leader not ready " + notReady)
                + (allSilent == 0 ? "" : ", every candidate silent " + allSilent)
                + (refused == 0 ? "" : ", transfers that failed " + refused);
            return new Transfer(steppedDown, to, read, caughtUp, catchUp, stepDown, rounds, between,
                why.isEmpty() ? "" : why.substring(2));
        }
    }

    /**
     * Asks Ratis to transfer leadership to {@code target} within {@code timeoutMs} and waits until this peer no
     * longer leads, or Ratis answers (success, or failure: its own timeout among them, after which the next candidate
     * may be asked; one asked while this request is pending would be refused at once).
     *
     * @return whether this peer no longer leads
     */
    private boolean transfer(RaftServer.Division division, RaftPeerId target, RaftGroupId group, long timeoutMs)
            throws IOException {
        CompletableFuture<RaftClientReply> reply = server.transferLeadershipAsync(new TransferLeadershipRequest(
            clientId, server.getId(), group, callIds.getAndIncrement(), target, timeoutMs));
        long deadline = System.nanoTime() + (timeoutMs + REPLY_GRACE_MILLIS) * 1_000_000;
        while (division.getInfo().isLeader()) {
            if (reply.isDone()) {
                // success: the new leader is known, so this peer no longer leads; a failure: it may lead still
                try {
                    return reply.join().isSuccess() || !division.getInfo().isLeader();
                } catch (CompletionException | CancellationException e) {
                    throw new IOException("transferring " + group + " to " + target + ": " + e.getMessage(), e);
                }
            }
            if (System.nanoTime() - deadline > 0) {
                return false; // Ratis answers at its timeout; this only bounds the wait should it not
            }
            sleep(STEP_DOWN_POLL_MILLIS, "waiting for " + target + " to take over " + group);
        }
        return true;
    }

    private static void sleep(long millis, String what) throws IOException {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + what, e);
        }
    }

    /**
     * Waits (at most {@code boundMillis}) until {@code target} holds the entries the leader had when the wait began.
     * Ratis' transfer waits for the follower to hold the leader's last entry too, but refuses every write meanwhile
     * ({@code LeaderSteppingDownException}, which clients see): waiting here first leaves only the transferee's
     * election and the few entries taken in meanwhile inside the transfer (with a lagging follower, 5-11 refused writes
     * per transfer at 100 writes/s became 0-2 in a measurement; the wait cost 29-64 ms). The target is fixed when the
     * wait begins: waiting for the leader's last entry as it moves, under steady writes (three writers in
     * RaftInvariantsIT), almost never saw the follower level with it and waited the whole bound, 200 ms of each
     * hand-off.
     *
     * @return whether it caught up (or its match index is not known) before the bound
     */
    static boolean awaitCaughtUp(RaftServer.Division division, RaftPeerId target, long boundMillis)
            throws IOException {
        long deadline = System.nanoTime() + boundMillis * 1_000_000;
        TermIndex last = division.getRaftLog().getLastEntryTermIndex();
        if (last == null) {
            return true;
        }
        while (true) {
            Long match = followerMatchIndices(division).get(target);
            if (match == null || match >= last.getIndex()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            sleep(CATCH_UP_POLL_MILLIS, target + " catches up");
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
     * whose JVM is due to collect last first (from the members' heartbeats; one that said nothing counts as due last),
     * so that a new leader is not the next to need a hand-off of its own; then the one that collected most recently.
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
            .thenComparing(p -> view.dueAt().getOrDefault(p.toString(), Long.MAX_VALUE), Comparator.reverseOrder())
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
