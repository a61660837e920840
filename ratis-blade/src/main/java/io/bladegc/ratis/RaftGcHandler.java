package io.bladegc.ratis;

import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.GcRequest;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.QueueEntry;
import io.bladegc.api.slot.SlotView;
import io.bladegc.api.slot.Status;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * The BLADE upcall for a Raft peer (BLADE section 4.2, figures 4 and 5): a peer collects only under a grant of the
 * replicated slot ledger, which keeps a majority of the group live; a leader first hands its leadership off.
 *
 * <p>One collection, on the handler's worker thread:
 * <ol>
 *   <li>for every group it leads, it transfers leadership (unless the expected pause is shorter than recent
 *       hand-offs took and than half the election timeout: then it collects in place, still under a grant) ({@link LeadershipHandoff}); when a transfer does not
 *       complete within the transfer timeout it gives up and does not collect while leader (the JVM will collect on
 *       its own, as without Blade);</li>
 *   <li>it asks the slot ledger ({@code acquire}) and watches it with reads until it is granted;</li>
 *   <li>granted, and still no leader anywhere (re-elected meanwhile, it cancels), with more of the lease left than
 *       the expected pause and a margin, it collects ({@link BladeNode#startGc}) and releases the grant with the
 *       measured pause.</li>
 * </ol>
 * The peer does not pause its own elections (Ratis' {@code leaderElectionManagement} pause): in Ratis 3.2.2 a peer
 * whose election timer fires while paused becomes a candidate that never campaigns, and resuming does not restart it,
 * which left groups without a leader for seconds. During the pause itself it cannot campaign, and after it Ratis'
 * pre-vote keeps a peer that merely missed heartbeats from disturbing a live leader.
 * No drain: a follower serves no client requests of its own; requests the old leader had in flight are retried by
 * their clients on the new leader. One line per collection reports the steps' durations.
 *
 * <p>Thread-safe: {@link #onGcRequest} only hands over to the worker; upcalls while one collection is under way are
 * covered by it ({@link BladeNode#startGc} collects for every request issued before it).
 */
final class RaftGcHandler implements GcHandler, AutoCloseable {
    /** Lease left at the grant beyond the expected pause, or the peer does not collect under it. */
    private static final long LEASE_MARGIN_MILLIS = 200;
    private static final long POLL_MILLIS = 5;
    /** The schedule lead before the first collection was timed: a hand-off and a few round trips on a LAN. */
    private static final long FIRST_LEAD_NANOS = 100_000_000;
    /** The schedule lead is the longest of this many recent upcall-to-grant times. */
    private static final int LEAD_WINDOW = 8;

    private final BladeNode node;
    private final String self;
    private final SlotClient slots;
    private final LeadershipHandoff handoff;
    private final RaftBladeOptions options;
    private final RaftBladeCounters counters;
    private final System.Logger log;
    private final AtomicBoolean busy = new AtomicBoolean();
    /** Recent upcall-to-grant times, nanoseconds; guarded by itself. */
    private final long[] recentLeads = new long[LEAD_WINDOW];
    private int leadsSeen;
    /** Recent hand-off durations, nanoseconds; guarded by itself. */
    private final long[] recentHandOffs = new long[LEAD_WINDOW];
    private int handOffsSeen;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "blade-raft-gc");
        t.setDaemon(true);
        return t;
    });

    RaftGcHandler(BladeNode node, String self, SlotClient slots, LeadershipHandoff handoff, RaftBladeOptions options,
                  RaftBladeCounters counters, System.Logger log) {
        this.node = node;
        this.self = self;
        this.slots = slots;
        this.handoff = handoff;
        this.options = options;
        this.counters = counters;
        this.log = log;
    }

    /**
     * The node raises upcalls this much earlier: the longest upcall-to-grant time (hand-offs, queueing) of the last
     * {@value #LEAD_WINDOW} collections, 100 ms before the first.
     */
    @Override
    public long scheduleLeadNanos() {
        synchronized (recentLeads) {
            if (leadsSeen == 0) {
                return FIRST_LEAD_NANOS;
            }
            long max = 0;
            for (int i = 0; i < Math.min(leadsSeen, LEAD_WINDOW); i++) {
                max = Math.max(max, recentLeads[i]);
            }
            return max;
        }
    }

    /**
     * Whether a leader should collect without handing off: only once hand-offs have been timed, when the expected
     * pause is shorter than a typical hand-off and than half the shortest election timeout (so the followers do not
     * start an election while it pauses). On a busy machine a Ratis hand-off (the transferee's election, the new
     * leader's first commit, clients finding it) can cost more than a young collection.
     */
    private boolean cheaperThanAHandOff(GcRequest r) {
        long typical = typicalHandOffNanos();
        long pause = r.estimatedPause().toNanos();
        return typical > 0 && pause < typical && pause < handoff.electionTimeoutMinNanos() / 2;
    }

    /** @return the mean of the last {@value #LEAD_WINDOW} hand-offs' durations, 0 before the first */
    private long typicalHandOffNanos() {
        synchronized (recentHandOffs) {
            int n = Math.min(handOffsSeen, LEAD_WINDOW);
            long sum = 0;
            for (int i = 0; i < n; i++) {
                sum += recentHandOffs[i];
            }
            return n == 0 ? 0 : sum / n;
        }
    }

    private void handedOff(long nanos) {
        synchronized (recentHandOffs) {
            recentHandOffs[handOffsSeen++ % LEAD_WINDOW] = nanos;
        }
    }

    private void scheduled(long nanos) {
        synchronized (recentLeads) {
            recentLeads[leadsSeen++ % LEAD_WINDOW] = nanos;
        }
    }

    @Override
    public GcDecision onGcRequest(GcRequest request) {
        if (busy.compareAndSet(false, true)) {
            try {
                worker.execute(() -> {
                    try {
                        collect(request);
                    } catch (RuntimeException e) {
                        log.log(Level.WARNING, "Blade raft " + self + ": GC #" + request.id() + " failed", e);
                    } finally {
                        busy.set(false);
                    }
                });
            } catch (RuntimeException e) { // closed
                busy.set(false);
            }
        }
        return GcDecision.DEFER;
    }

    private void collect(GcRequest r) {
        long start = System.nanoTime();
        long pauseBefore = node.pauseNanos();
        Step step = new Step(r);
        try {
            List<RaftGroupId> led = handoff.ledGroups();
            boolean inPlace = !led.isEmpty() && cheaperThanAHandOff(r);
            if (inPlace) {
                counters.inPlace.increment();
                step.note("leader: an expected pause of " + ms(r.estimatedPause().toNanos()) + " costs less than a "
                    + "hand-off (" + ms(typicalHandOffNanos()) + " recently) and stays under half the election timeout;"
                    + " collecting in place");
                led = List.of();
            }
            for (RaftGroupId g : led) {
                long t = System.nanoTime();
                RaftPeerId to = handoff.handOff(g, slots.view(), options.transferTimeout().toMillis());
                if (to == null) {
                    counters.transferFailures.increment();
                    step.done(Level.WARNING, "leadership of " + g + " not handed off within "
                        + options.transferTimeout().toMillis() + " ms; not collecting while leader");
                    return;
                }
                counters.transfers.increment();
                handedOff(System.nanoTime() - t);
                step.note("handed " + shortId(g) + " to " + to + " in " + ms(System.nanoTime() - t));
            }
            Grant grant = awaitGrant(r, pauseBefore, step);
            if (grant == null) {
                return;
            }
            long scheduled = System.nanoTime() - start;
            scheduled(scheduled);
            step.note("granted epoch " + grant.epoch() + " after " + ms(scheduled));
            if (!inPlace && !handoff.ledGroups().isEmpty()) {
                cancel(r, step, "elected again before collecting");
                return;
            }
            long leaseLeft = grant.deadline() - System.currentTimeMillis();
            if (leaseLeft < r.estimatedPause().toMillis() + LEASE_MARGIN_MILLIS) {
                counters.fenced.increment();
                cancel(r, step, "its lease ends in " + leaseLeft + " ms, too soon for a pause of "
                    + r.estimatedPause().toMillis() + " ms");
                return;
            }
            long gcStart = System.nanoTime();
            GcOutcome outcome = node.startGc(r.id());
            long pause = node.pauseNanos() - pauseBefore;
            counters.collections.increment();
            step.note(outcome + " in " + ms(System.nanoTime() - gcStart) + " (pause " + ms(pause) + ")");
            Outcome released = slots.release(self, grant.epoch(), (pause + 999_999) / 1_000_000);
            if (released.status() != Status.OK) { // the lease ended: STALE_EPOCH, or UNKNOWN_NODE when lost too
                counters.staleReleases.increment();
                step.done(Level.WARNING, "release refused (" + released.status() + "): " + released.message());
            } else {
                step.done(Level.INFO, "released");
            }
        } catch (IOException e) {
            counters.unavailable.increment();
            step.done(Level.WARNING, "slot group unavailable (" + e.getMessage() + "); the JVM collects on its own");
        }
    }

    /**
     * Asks once, then watches the ledger with reads (no log entry per look) until this peer's request is granted; asks
     * again when the request is neither granted nor queued any more (it expired or the peer was lost meanwhile).
     *
     * @return the grant, or {@code null} when the request went away (the JVM collected, the wait ran out)
     */
    private Grant awaitGrant(GcRequest r, long pauseBefore, Step step) throws IOException {
        long lead = Math.max(0, r.estimatedPause().toMillis());
        long deadline = System.nanoTime() + options.lease().toNanos();
        Outcome o = slots.acquire(self, r.id(), lead);
        while (true) {
            if (o.status() == Status.GRANTED) {
                return o.grant();
            }
            if (o.status() == Status.UNKNOWN_NODE) {
                slots.join(self);
                o = slots.acquire(self, r.id(), lead);
                continue;
            }
            if (o.status() != Status.QUEUED) {
                step.done(Level.WARNING, "acquire answered " + o.status() + ": " + o.message());
                return null;
            }
            if (node.pauseNanos() != pauseBefore) {
                cancel(r, step, "the JVM collected on its own while queued");
                return null;
            }
            if (System.nanoTime() > deadline) {
                cancel(r, step, "no grant within " + options.lease().toMillis() + " ms");
                return null;
            }
            sleep();
            SlotView view = slots.view().slots();
            Grant mine = null;
            boolean queued = false;
            for (Grant g : view.collecting()) {
                mine = g.node().equals(self) && g.gcId() == r.id() ? g : mine;
            }
            for (QueueEntry q : view.queue()) {
                queued |= q.node().equals(self) && q.gcId() == r.id();
            }
            if (mine != null) {
                return mine;
            }
            if (!queued) {
                o = slots.acquire(self, r.id(), lead);
            }
        }
    }

    private void cancel(GcRequest r, Step step, String why) throws IOException {
        slots.cancel(self, r.id());
        counters.cancelled.increment();
        step.done(Level.INFO, "cancelled: " + why);
    }

    private static void sleep() {
        try {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while queued", e);
        }
    }

    private static String shortId(RaftGroupId g) {
        String s = g.toString();
        return s.length() > 12 ? s.substring(s.length() - 12) : s;
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    /** The line one collection reports. */
    private final class Step {
        private final StringBuilder line;

        Step(GcRequest r) {
            line = new StringBuilder("Blade raft ").append(self).append(" GC #").append(r.id()).append(' ')
                .append(r.generation());
        }

        void note(String s) {
            line.append(": ").append(s);
        }

        void done(Level level, String s) {
            note(s);
            log.log(level, line.toString());
        }
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
