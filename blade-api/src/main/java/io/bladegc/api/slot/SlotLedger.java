package io.bladegc.api.slot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The GC-slot ledger of a cluster: who is a member, who collects, who waits. Pure and deterministic: no I/O, no
 * clock of its own; every call passes the time in, so the same calls give the same results (which is what lets a
 * Raft state machine replicate it, and tests explore it exhaustively).
 *
 * <p>Rules:
 * <ul>
 *   <li>at most {@link SlotPolicy#allowance(int) K} grants at once (see due requests below), and never a grant that
 *       would leave fewer than {@link SlotPolicy#minHealthy()} live members not collecting; otherwise the request
 *       queues, most urgent
 *       (earliest {@code now + leadMillis}) first;</li>
 *   <li>a grant is a lease with a deadline and a strictly increasing epoch; a holder that neither releases nor renews
 *       loses it at the deadline; a release or renewal carrying any other epoch than the holder's current grant is
 *       {@link Status#STALE_EPOCH};</li>
 *   <li>{@code acquire} is idempotent per (node, gcId); {@code cancel} withdraws a request (the JVM collected on its
 *       own) and gives back a grant made for it;</li>
 *   <li><b>ids only grow</b>: the ledger keeps each member's newest ended request (cancelled, released, expired, or
 *       replaced by a newer one) and refuses ({@link Status#REJECTED}) to queue or grant it, or an older one, again:
 *       an acquire that reaches the ledger after the cancel that withdrew it (it was on its way when the JVM
 *       collected) would otherwise hold a slot for a node that moved on, until the lease ran out. A cancel counts even
 *       when it comes first and finds nothing. A join starts the count anew: it may come from a restarted process,
 *       whose ids start again from 1;</li>
 *   <li>a member silent for {@link SlotPolicy#memberTimeoutMillis()} is lost: it leaves the live members and the
 *       queue, but a grant it holds still runs to its deadline (it may be collecting while frozen);</li>
 *   <li><b>who goes next</b> is {@link SlotChooser}'s proposal, which the ledger checks against K, min-healthy and its
 *       leases before it grants: within K the most urgent request, but a full collection not yet due after the
 *       members that come due during its pause; beyond K only a due request for a young collection, the shortest
 *       expected hold first (see below);</li>
 *   <li><b>a re-sent acquire</b> (the same gcId) carries the node's newest lead time: its urgency moves with it;</li>
 *   <li><b>spreading full collections</b>: a node whose old generation fills up may offer, with a request for a young
 *       collection, to run the full collection in its place now ({@link Ask#fullOfferMillis()}), before it comes due
 *       at a worse time. Its grant says {@link Grant#full() full} only within K, when nobody else waits, no other
 *       full collection runs, no other member's full collection comes due (from its heartbeats) before that pause and
 *       {@value #FULL_MARGIN_MILLIS} ms have passed and no later than the offerer's own, and either another member's
 *       full collection comes due within one more such pause and one more node may collect beyond K meanwhile, or
 *       the other members that expect their JVM to collect (from their heartbeats and requests) before the pause has
 *       passed can each be granted as due, beyond K, meanwhile (none without
 *       {@link SlotPolicy#maxCollectingWhenDue()}); those times are scaled for the offerer's share of the load going
 *       to the others while it is out ({@link DueTimes#fullFits}). Otherwise two full collections, or a full one and
 *       another node's young one, come due together and one of them escapes while it queues behind the other;</li>
 *   <li><b>due requests</b>: when K are collecting and a waiting node that asks for a young collection is expected to
 *       collect on its own within {@value #DUE_MARGIN_MILLIS} ms, it is granted beyond K while fewer than
 *       {@link SlotPolicy#maxCollectingWhenDue()} collect and {@code minHealthy} holds (its event says
 *       {@value #DUE_DETAIL}), the shortest expected hold first: otherwise it collects while it waits, in rotation with
 *       requests inside, as when a short young collection comes due during another node's long full one. A request
 *       for a full collection ({@link Ask#full()}) never goes beyond K: its long pause would keep a second node out
 *       of rotation meanwhile.</li>
 * </ul>
 * A ledger that takes over from an earlier one whose state is lost (a restarted coordinator) is made with
 * {@link #SlotLedger(SlotPolicy, long, long)}: its epochs continue above the old ones, and it grants nothing until the
 * old leases have run out, so a restart never lets more than K collect.
 *
 * <p>Every call first applies what time alone decides (expiries, lost members, grants to the queue), so results do not
 * depend on how often {@link #tick} is called. Time never goes backwards: an earlier {@code now} counts as the latest.
 *
 * <p>Not thread-safe: one caller at a time (the coordinator's single ledger thread, or a state machine's apply).
 */
public final class SlotLedger {
    /** What a full collection offered in place of a young one must leave free after its expected pause. */
    public static final long FULL_MARGIN_MILLIS = 100;
    /**
     * A waiting request is due when its node's JVM is expected to collect on its own within this: one coordinator
     * tick (100 ms), which may pass before the ledger looks again, and the grant's way to the node and its drain.
     */
    public static final long DUE_MARGIN_MILLIS = 150;
    /** The detail of a {@link SlotEvent.Type#GRANTED} event whose grant is {@link Grant#full() full}. */
    public static final String FULL_DETAIL = "full";
    /** The detail of a {@link SlotEvent.Type#GRANTED} event beyond K, for a due request. */
    public static final String DUE_DETAIL = "due, beyond K";

    private final SlotPolicy policy;
    /** Members by when they were last seen, oldest first: a refresh moves a member to the end (time never goes back). */
    private final Map<String, Long> lastSeen = new LinkedHashMap<>();
    /** When members expect their JVM to collect, and to need a full collection. */
    private final DueTimes due = new DueTimes();
    private final Map<String, Grant> grants = new LinkedHashMap<>();
    /** Each member's newest ended GC request: it and older ones are never queued again. */
    private final Map<String, Long> endedGcIds = new HashMap<>();
    private final TreeSet<Waiting> queue = new TreeSet<>(Waiting.MOST_URGENT_FIRST);
    private final long grantsFrom;
    private long epoch;
    private long seq;
    private long clock = Long.MIN_VALUE;

    /** A ledger with nothing before it: epochs from 1, grants at once. */
    public SlotLedger(SlotPolicy policy) {
        this(policy, 0, Long.MIN_VALUE);
    }

    /**
     * A ledger that takes over from one whose state is lost.
     *
     * @param epochsAbove every epoch this ledger hands out is greater than this (at least the last epoch the earlier
     *                    ledger could have handed out)
     * @param grantsFrom  no grant before this time (the latest deadline the earlier ledger could have set); requests
     *                    made before it queue
     */
    public SlotLedger(SlotPolicy policy, long epochsAbove, long grantsFrom) {
        if (epochsAbove < 0) {
            throw new IllegalArgumentException("epochsAbove must not be negative: " + epochsAbove);
        }
        this.policy = policy;
        this.epoch = epochsAbove;
        this.grantsFrom = grantsFrom;
    }

    /**
     * Adds a member, or refreshes it (a join is also a heartbeat). Either way the member's GC ids count anew: a join
     * comes from a process that starts (perhaps restarted, numbering its requests from 1 again) or that the ledger
     * may have forgotten.
     */
    public Outcome join(String node, long now) {
        List<SlotEvent> events = advance(now);
        endedGcIds.remove(node);
        if (!seen(node)) {
            lastSeen.put(node, clock);
            events.add(event(SlotEvent.Type.JOINED, node, 0, 0, ""));
            promote(events);
        }
        return answer(Status.OK, node, "", events);
    }

    /** Marks a member alive, saying nothing of its next collections ({@link #heartbeat(String, long, long, long)}). */
    public Outcome heartbeat(String node, long now) {
        return heartbeat(node, -1, -1, now);
    }

    /**
     * Marks a member alive and notes when it expects its JVM to collect, saying nothing of its next full collection
     * (see {@link #heartbeat(String, long, long, long)}).
     */
    public Outcome heartbeat(String node, long dueInMillis, long now) {
        return heartbeat(node, dueInMillis, -1, now);
    }

    /**
     * Marks a member alive and notes when it expects its JVM to collect, and to run its next full collection.
     *
     * @param dueInMillis     the time left before the member's JVM collects on its own, or a negative number when
     *                        unknown (what the ledger knew stays)
     * @param fullDueInMillis the time left before the member's JVM runs a full collection on its own, or a negative
     *                        number when unknown (what the ledger knew goes: a node says so right after a collection)
     */
    public Outcome heartbeat(String node, long dueInMillis, long fullDueInMillis, long now) {
        List<SlotEvent> events = advance(now);
        if (!lastSeen.containsKey(node)) {
            return notAMember(node, events);
        }
        seen(node);
        if (dueInMillis >= 0) {
            due.due(node, saturatedAdd(clock, dueInMillis));
        }
        due.fullDue(node, fullDueInMillis >= 0 ? saturatedAdd(clock, fullDueInMillis) : Long.MAX_VALUE);
        return answer(Status.OK, node, "", events);
    }

    /** Removes a member; its queued request goes, and a grant it holds is given back. */
    public Outcome leave(String node, long now) {
        List<SlotEvent> events = advance(now);
        if (lastSeen.remove(node) == null) {
            return notAMember(node, events);
        }
        forget(node);
        Grant g = grants.remove(node);
        if (g != null) {
            events.add(event(SlotEvent.Type.RELEASED, node, g.gcId(), g.epoch(), "left"));
        }
        events.add(event(SlotEvent.Type.LEFT, node, 0, 0, ""));
        promote(events);
        return answer(Status.OK, node, "", events);
    }

    /** Asks for a slot for a young collection of unknown length, offering no full one ({@link Ask#young}). */
    public Outcome acquire(String node, long gcId, long leadMillis, long now) {
        return acquire(node, Ask.young(gcId, leadMillis), now);
    }

    /**
     * Asks for a slot. Idempotent per (node, gcId), except that a repeated ask's lead time replaces the one before (a
     * waiting node asks again with what it has left); the rest of the ask is fixed with its first call.
     *
     * @return {@link Status#GRANTED}, {@link Status#QUEUED}, {@link Status#UNKNOWN_NODE}, or {@link Status#REJECTED}
     *     (bad numbers, the node holds a grant for another request, or the request has ended or is older than the
     *     one the node has queued: ids only grow)
     */
    public Outcome acquire(String node, Ask ask, long now) {
        List<SlotEvent> events = advance(now);
        if (!lastSeen.containsKey(node)) {
            return notAMember(node, events);
        }
        if (ask.problem() != null) {
            return answer(Status.REJECTED, node, ask.problem(), events);
        }
        long gcId = ask.gcId();
        seen(node);
        Grant held = grants.get(node);
        if (held != null) {
            return held.gcId() == gcId ? answer(Status.OK, node, "", events)
                : answer(Status.REJECTED, node, "node " + node + " holds a grant for gc " + held.gcId()
                    + " (epoch " + held.epoch() + "); release it first", events);
        }
        long ended = endedGcIds.getOrDefault(node, 0L);
        if (gcId <= ended) {
            return answer(Status.REJECTED, node, "GC request " + gcId + " of node " + node + " has ended (its newest "
                + "ended request is gc " + ended + "); a new request needs a newer id", events);
        }
        Waiting waiting = waitingOf(node);
        if (waiting != null && gcId < waiting.ask().gcId()) {
            return answer(Status.REJECTED, node, "GC request " + gcId + " of node " + node + " is older than the one "
                + "it has queued (gc " + waiting.ask().gcId() + ")", events);
        }
        long urgentAt = saturatedAdd(clock, ask.leadMillis());
        due.due(node, urgentAt);
        if (waiting != null && waiting.ask().gcId() == gcId) {
            queue.remove(waiting); // the same request, asked again with the time it has left now
            queue.add(new Waiting(new QueueEntry(node, waiting.ask().withLead(ask.leadMillis()), urgentAt),
                waiting.seq()));
        } else {
            if (waiting != null) {
                queue.remove(waiting); // a newer request replaces one the node no longer needs
                ended(node, waiting.ask().gcId());
            }
            queue.add(new Waiting(new QueueEntry(node, ask, urgentAt), seq++));
            events.add(event(SlotEvent.Type.QUEUED, node, gcId, 0, "lead " + ask.leadMillis() + " ms"
                + (ask.full() ? ", full" : "") + (ask.holdMillis() > 0 ? ", hold " + ask.holdMillis() + " ms" : "")
                + (ask.fullOfferMillis() > 0 ? ", full offered (" + ask.fullOfferMillis() + " ms)" : "")));
        }
        promote(events);
        return answer(Status.OK, node, "", events);
    }

    /** Gives a grant back after collecting. */
    public Outcome release(String node, long grantEpoch, long pauseMillis, long now) {
        List<SlotEvent> events = advance(now);
        Grant g = grants.get(node);
        if (g == null || g.epoch() != grantEpoch) {
            if (g == null && !lastSeen.containsKey(node)) {
                return notAMember(node, events);
            }
            return answer(Status.STALE_EPOCH, node, staleMessage(node, grantEpoch, g), events);
        }
        grants.remove(node);
        due.collected(node, g.full());
        ended(node, g.gcId());
        seen(node);
        events.add(event(SlotEvent.Type.RELEASED, node, g.gcId(), g.epoch(), "pause " + pauseMillis + " ms"));
        promote(events);
        return answer(Status.OK, node, "", events);
    }

    /** Extends a grant's deadline by a lease from now. */
    public Outcome renew(String node, long grantEpoch, long now) {
        List<SlotEvent> events = advance(now);
        Grant g = grants.get(node);
        if (g == null && !lastSeen.containsKey(node)) {
            return notAMember(node, events);
        }
        if (g == null || g.epoch() != grantEpoch) {
            return answer(Status.STALE_EPOCH, node, staleMessage(node, grantEpoch, g), events);
        }
        Grant renewed = new Grant(node, g.gcId(), g.epoch(), g.grantedAt(), saturatedAdd(clock, policy.leaseMillis()),
            g.full());
        grants.put(node, renewed);
        seen(node);
        events.add(event(SlotEvent.Type.RENEWED, node, g.gcId(), g.epoch(), ""));
        return answer(Status.OK, node, "", events);
    }

    /**
     * Withdraws GC request {@code gcId}: out of the queue (and an older request of the node's with it), and a grant
     * made for it is given back; from then on the ledger refuses it and older ones, also when this cancel came before
     * the acquire it withdraws. {@link Status#OK} for a member (also when nothing matched),
     * {@link Status#UNKNOWN_NODE} for a node that is no member and holds nothing.
     */
    public Outcome cancel(String node, long gcId, long now) {
        List<SlotEvent> events = advance(now);
        if (!lastSeen.containsKey(node) && !grants.containsKey(node) && waitingOf(node) == null) {
            return notAMember(node, events);
        }
        ended(node, gcId);
        Waiting w = waitingOf(node);
        if (w != null && w.gcId() <= gcId) {
            due.collected(node, w.ask().full()); // the JVM collected on its own: a full collection when it needed one
            queue.remove(w);
            events.add(event(SlotEvent.Type.CANCELLED, node, w.gcId(), 0, "queued"));
        }
        Grant g = grants.get(node);
        if (g != null && g.gcId() == gcId) {
            grants.remove(node);
            due.collected(node, g.full());
            events.add(event(SlotEvent.Type.CANCELLED, node, gcId, g.epoch(), "granted"));
            promote(events);
        }
        return answer(Status.OK, node, "", events);
    }

    /** Applies what time alone decides: expired leases, lost members, grants to the queue. */
    public List<SlotEvent> tick(long now) {
        return advance(now);
    }

    /** @return the ledger as it stands */
    public SlotView view() {
        List<QueueEntry> waiting = new ArrayList<>();
        for (Waiting w : queue) {
            waiting.add(w.entry());
        }
        List<String> members = new ArrayList<>(lastSeen.keySet());
        members.sort(null);
        return new SlotView(members, new ArrayList<>(grants.values()), waiting, epoch, grantsFrom, policy);
    }

    /** @return everything this ledger holds, for a snapshot (see {@link #restore}) */
    public LedgerState state() {
        List<LedgerState.Member> members = new ArrayList<>();
        lastSeen.forEach((node, at) -> members.add(new LedgerState.Member(node, at,
            due.dueAt(node), due.fullDueAt(node), endedGcIds.getOrDefault(node, 0L))));
        List<QueueEntry> waiting = new ArrayList<>();
        for (Waiting w : queue) {
            waiting.add(w.entry());
        }
        return new LedgerState(members, new ArrayList<>(grants.values()), waiting, epoch, clock, grantsFrom);
    }

    /**
     * A ledger in the state {@link #state()} returned: it answers every later call as the original would have.
     *
     * @param policy the original's policy
     * @param state  what the original held
     * @return the restored ledger
     */
    public static SlotLedger restore(SlotPolicy policy, LedgerState state) {
        SlotLedger ledger = new SlotLedger(policy, state.epoch(), state.grantsFrom());
        ledger.clock = state.clock();
        for (LedgerState.Member m : state.members()) {
            ledger.lastSeen.put(m.node(), m.lastSeen());
            ledger.due.due(m.node(), m.dueAt());
            ledger.due.fullDue(m.node(), m.fullDueAt());
            ledger.ended(m.node(), m.endedGcId());
        }
        for (Grant g : state.grants()) {
            ledger.grants.put(g.node(), g);
        }
        for (QueueEntry q : state.queue()) { // most urgent first: sequence numbers keep that order among equals
            ledger.queue.add(new Waiting(q, ledger.seq++));
        }
        return ledger;
    }

    /** @return the grant {@code node} holds, or {@code null} */
    public Grant grantOf(String node) {
        return grants.get(node);
    }

    /** @return the place of {@code node}'s request for {@code gcId} in the queue from 1, or -1 when it is not queued */
    public int queuePosition(String node, long gcId) {
        int i = 1;
        for (Waiting w : queue) {
            if (w.node().equals(node)) {
                return w.gcId() == gcId ? i : -1;
            }
            i++;
        }
        return -1;
    }

    /** @return how many live members there are (cheaper than {@link #view()}) */
    public int memberCount() {
        return lastSeen.size();
    }

    /** @return how many grants are running */
    public int collectingCount() {
        return grants.size();
    }

    /** @return how many requests wait */
    public int queueLength() {
        return queue.size();
    }

    /**
     * Marks a member seen now, moving it to the end of the last-seen order.
     *
     * @return whether it was a member
     */
    private boolean seen(String node) {
        if (lastSeen.remove(node) == null) {
            return false;
        }
        lastSeen.put(node, clock);
        return true;
    }

    private List<SlotEvent> advance(long now) {
        clock = Math.max(clock, now);
        List<SlotEvent> events = new ArrayList<>();
        for (Iterator<Grant> it = grants.values().iterator(); it.hasNext();) {
            Grant g = it.next();
            if (g.deadline() <= clock) {
                it.remove();
                ended(g.node(), g.gcId());
                events.add(event(SlotEvent.Type.EXPIRED, g.node(), g.gcId(), g.epoch(), "lease deadline passed"));
            }
        }
        // oldest first: stop at the first member heard from recently, so a call costs the members lost, not all
        for (Iterator<Map.Entry<String, Long>> it = lastSeen.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, Long> m = it.next();
            String node = m.getKey();
            long silent = clock - m.getValue();
            if (silent <= policy.memberTimeoutMillis()) {
                break;
            }
            it.remove();
            forget(node);
            events.add(event(SlotEvent.Type.LOST, node, 0, 0, "silent for " + silent + " ms"));
        }
        promote(events);
        return events;
    }

    /**
     * Grants what {@link SlotChooser} proposes, as long as it proposes and each proposal keeps the rules: at most
     * K (K-when-due for a due request) collecting, {@code minHealthy} live members serving, nothing beyond K that
     * runs a full collection.
     */
    private void promote(List<SlotEvent> events) {
        if (clock < grantsFrom) {
            return; // an earlier ledger's leases may still run
        }
        while (!queue.isEmpty()) {
            int live = lastSeen.size();
            int liveCollecting = 0;
            boolean fullRunning = false;
            for (Grant g : grants.values()) {
                liveCollecting += lastSeen.containsKey(g.node()) ? 1 : 0;
                fullRunning |= g.full();
            }
            int serving = live - liveCollecting;
            if (serving - 1 < policy.minHealthy()) {
                return;
            }
            long fullRoom = Math.max(0, Math.min(policy.allowanceWhenDue(live) - grants.size() - 1,
                serving - 1 - policy.minHealthy()));
            SlotChooser.Choice c = SlotChooser.choose(queue, new SlotChooser.Slots(grants.size(),
                policy.allowance(live), policy.allowanceWhenDue(live), fullRoom, fullRunning, serving,
                grants::containsKey), due, clock);
            if (c == null) {
                return;
            }
            Waiting w = c.waiting();
            int limit = c.beyondK() ? policy.allowanceWhenDue(live) : policy.allowance(live);
            if (grants.size() >= limit || c.beyondK() && (c.full() || w.ask().full()) || !queue.remove(w)) {
                throw new IllegalStateException("the chooser proposed what the ledger must not grant: " + c
                    + " with " + grants.size() + " collecting of " + live + " live members, " + policy);
            }
            boolean full = c.full() || w.ask().full();
            Grant g = new Grant(w.node(), w.gcId(), ++epoch, clock, saturatedAdd(clock, policy.leaseMillis()), full);
            grants.put(w.node(), g);
            events.add(event(SlotEvent.Type.GRANTED, w.node(), w.gcId(), g.epoch(),
                c.beyondK() ? DUE_DETAIL : full ? FULL_DETAIL : ""));
        }
    }

    /** @return {@link Status#UNKNOWN_NODE} for {@code node}, with the events of this call */
    private Outcome notAMember(String node, List<SlotEvent> events) {
        return answer(Status.UNKNOWN_NODE, node, "node " + node + " is not a member; join first", events);
    }

    private Outcome answer(Status status, String node, String message, List<SlotEvent> events) {
        Grant g = grants.get(node);
        if (status == Status.OK && g != null) {
            return new Outcome(Status.GRANTED, g, -1, message, events);
        }
        int position = positionOf(node);
        if (status == Status.OK && position > 0) {
            return new Outcome(Status.QUEUED, null, position, message, events);
        }
        return new Outcome(status, g, position, message, events);
    }

    private int positionOf(String node) {
        int i = 1;
        for (Waiting w : queue) {
            if (w.node().equals(node)) {
                return i;
            }
            i++;
        }
        return -1;
    }

    /** Forgets what the ledger knows of a member that left or was lost: its due times, ended ids and queued request. */
    private void forget(String node) {
        due.forget(node);
        endedGcIds.remove(node);
        queue.removeIf(w -> w.node().equals(node));
    }

    /** Notes that {@code node}'s request {@code gcId} ended, when the node is a member (ids only grow). */
    private void ended(String node, long gcId) {
        if (gcId > 0 && lastSeen.containsKey(node)) {
            endedGcIds.merge(node, gcId, Math::max);
        }
    }

    private Waiting waitingOf(String node) {
        for (Waiting w : queue) {
            if (w.node().equals(node)) {
                return w;
            }
        }
        return null;
    }

    private static String staleMessage(String node, long epoch, Grant g) {
        return "node " + node + " holds no grant with epoch " + epoch
            + (g == null ? " (it holds none)" : " (its grant has epoch " + g.epoch() + ")");
    }

    private SlotEvent event(SlotEvent.Type type, String node, long gcId, long grantEpoch, String detail) {
        return new SlotEvent(type, node, gcId, grantEpoch, clock, detail);
    }

    /**
     * @return {@code a + b}, or {@link Long#MAX_VALUE} where that overflows: the ledger's clock arithmetic, where a
     *     time too far off to matter is as good as never
     */
    public static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
