package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Invitations;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.QueueEntry;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotLedger;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.SlotView;
import io.bladegc.api.slot.Status;
import io.bladegc.coordinator.lb.LoadBalancer;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;

/**
 * The coordinator's slots: owns the {@link SlotLedger} and runs every call to it one at a time, in order, through the
 * {@link SlotExecutor} (by default a {@link SerialSlotExecutor}: on the calling thread when no other call runs, so a
 * request costs no thread hop), ticks it every {@link #TICK_MILLIS} ms, keeps the recent events, the gauges and the
 * {@link SlotDemand demand on the slots} (one log line when it comes to exceed them, one when it is back under) and,
 * from it, whether to hide collections at all ({@link Governor}: an acquire while it observes is answered
 * {@link SlotReply.Kind#UNSCHEDULED}, one log line per step),
 * answers the acquire long-polls ({@link LongPolls}), and drives the load balancer through {@link Rotation}. Made by
 * {@link #builder()}.
 *
 * <p>Every node call carries the node's member key ({@link MemberKeys}): a call for a node the ledger knows without
 * that key is answered {@link SlotReply.Kind#FORBIDDEN} and changes nothing. A node joins with a key of its own
 * choosing, or without one and gets one made for it in the answer ({@link SlotReply#memberKey()}).
 *
 * <p>Thread-safe: every public method may be called from any thread; it hands the work to the executor and answers
 * with a future, which completes on the thread that ran the call (the caller's, another caller's, or the timer
 * thread {@code blade-coordinator-slots} for ticks and long-poll timeouts) or, for a grant, on the load-balancer
 * thread once the node is out of rotation. After {@link #close()} the futures complete with {@link SlotReply.Kind#UNAVAILABLE}
 * ({@link #cluster()} exceptionally, with a {@link RejectedExecutionException}).
 */
public final class SlotService implements AutoCloseable {
    /** How often the ledger is ticked (expiries, lost members, grants to the queue), milliseconds. */
    public static final long TICK_MILLIS = 100;
    /** How many recent events {@link #cluster()} reports. */
    public static final int RECENT_EVENTS = 256;

    private static final System.Logger LOG = System.getLogger(SlotService.class.getName());

    private final Ledger ledger;
    private final SlotPolicy policy;
    private final LongSupplier clock;
    private final SlotExecutor executor;
    private final Rotation rotation;
    private final SlotMetrics metrics;
    private final int maxMembers;
    private final long tickMillis;
    private final LongPolls polls;
    private final Set<String> members = new HashSet<>();
    private final MemberKeys keys = new MemberKeys();
    private final RecentEvents recent = new RecentEvents(RECENT_EVENTS);
    private final Governor governor = new Governor();
    private final Invitations invitations = new Invitations();
    private volatile boolean closed;
    /**
     * Whether the last tick found this process serving; touched by executor tasks only. A local ledger serves from
     * the start (its state is this process's own); a replica takes over when it becomes the ready Raft leader.
     */
    private boolean serving;

    SlotService(Ledger ledger, SlotPolicy policy, LongSupplier clock, SlotExecutor executor, Rotation rotation,
                SlotMetrics metrics, int maxMembers, long tickMillis) {
        this.ledger = ledger;
        this.policy = policy;
        this.clock = clock;
        this.executor = executor;
        this.rotation = rotation;
        this.metrics = metrics;
        this.maxMembers = maxMembers;
        this.tickMillis = tickMillis;
        this.polls = new LongPolls(ledger, clock, executor, rotation, this::publish);
        this.serving = ledger instanceof LocalLedger;
        executor.schedule(this::tick, tickMillis);
    }

    /** @return a builder with the defaults: {@link SlotPolicy#defaults()}, a monotonic clock, no load balancer */
    public static SlotServiceBuilder builder() {
        return new SlotServiceBuilder();
    }

    /**
     * Adds {@code node} as a member, or refreshes it. A node the ledger knows must present its key; one it does not
     * know binds {@code key}, or gets a key made for it when {@code key} is {@code null} (in the answer).
     *
     * @param key the node's member key, or {@code null}
     */
    public CompletableFuture<SlotReply> join(String node, String key) {
        return submit(node, now -> {
            boolean known = knows(node);
            if (!keys.admits(node, key, known)) {
                return forbidden(node, 0, now);
            }
            if (!members.contains(node) && members.size() >= maxMembers) {
                return SlotReply.of(SlotReply.Kind.UNAVAILABLE, node, 0,
                    "member limit reached (" + maxMembers + " members)", now);
            }
            SlotReply reply = apply(ledger.join(node, now), node, 0, now);
            if (known || reply.kind() != SlotReply.Kind.OK) {
                return reply;
            }
            String made = keys.issue(node, key);
            return made == null ? reply : reply.withMemberKey(made);
        });
    }

    /**
     * Marks {@code node} alive and notes when it expects its JVM to collect ({@code dueInMillis}) and to run a full
     * collection ({@code fullDueInMillis}); -1: unknown. {@code key}: the node's member key, here and below.
     * The answer {@link SlotReply#invited() invites} the node to collect now when its next collection would meet
     * another member's that is near: it would come due during another's full collection, or another would come due
     * during its own young one ({@link Invitations}).
     */
    public CompletableFuture<SlotReply> heartbeat(String node, String key, long dueInMillis, long fullDueInMillis) {
        return submitFor(node, key, 0, now -> {
            SlotReply reply = apply(ledger.heartbeat(node, dueInMillis, fullDueInMillis, now), node, 0, now);
            if (reply.kind() == SlotReply.Kind.UNKNOWN_NODE) {
                return reply;
            }
            // also a queued or collecting member's: its coming collection is what invites the others
            invitations.heartbeat(node, dueInMillis, fullDueInMillis, now);
            if (reply.kind() != SlotReply.Kind.OK) {
                return reply;
            }
            String by = governor.mode() == Governor.Mode.HIDE ? invitations.invitedBy(node, now) : null;
            return by == null ? reply : reply.invited("collect now: your next collection would meet " + by + "'s,"
                + " due within " + Invitations.HORIZON_MILLIS + " ms");
        });
    }

    /** Removes {@code node}; its queued request goes, a grant it holds is given back. */
    public CompletableFuture<SlotReply> leave(String node, String key) {
        return submitFor(node, key, 0, now -> apply(ledger.leave(node, now), node, 0, now));
    }

    /**
     * Asks for a slot. When the node is queued and {@code waitMillis > 0}, the answer waits until the node is granted
     * (after it was taken out of rotation), its request is gone, or {@code waitMillis} passed (then: its queue
     * position). A newer acquire from the same node answers an older one that still waits: with its own answer for
     * the same {@code gcId}, {@link SlotReply.Kind#CANCELLED} for another one (replaced); one the ledger refuses (an
     * ended request's, arriving late) answers none. The ask's {@link Ask#fullOfferMillis()} offers a full collection
     * in place of the young one (0: none); the grant says whether it was taken.
     */
    public CompletableFuture<SlotReply> acquire(String node, String key, Ask ask, long waitMillis) {
        long gcId = ask.gcId();
        CompletableFuture<SlotReply> result = new CompletableFuture<>();
        run(result, () -> {
            long now = clock.getAsLong();
            if (!keys.admits(node, key, knows(node))) {
                result.complete(forbidden(node, gcId, now));
                return;
            }
            if (governor.mode() == Governor.Mode.OBSERVE) {
                result.complete(unscheduled(node, gcId, now));
                return;
            }
            invitations.fullAsked(node, ask.full() ? ask.holdMillis() : ask.fullOfferMillis());
            SlotReply reply = apply(ledger.acquire(node, ask, now), node, gcId, now);
            // a refused acquire (a request that ended, arriving late) leaves the node's live poll alone
            CompletableFuture<SlotReply> previous = reply.kind() == SlotReply.Kind.REJECTED ? null
                : polls.replace(node, gcId, now);
            if (previous != null) {
                rotation.deliver(previous, reply);
            }
            if (reply.kind() == SlotReply.Kind.QUEUED && waitMillis > 0 && !closed) {
                polls.open(node, gcId, result, waitMillis);
            } else {
                rotation.deliver(result, reply);
            }
        }, (kind, why) -> SlotReply.of(kind, node, gcId, why, clock.getAsLong()));
        return result;
    }

    /** Gives a grant back after collecting; {@code pauseMillis} is the measured pause. */
    public CompletableFuture<SlotReply> release(String node, String key, long epoch, long pauseMillis) {
        return submitFor(node, key, 0, now -> {
            Outcome o = ledger.release(node, epoch, pauseMillis, now);
            if (o.status() == Status.OK) {
                metrics.pause(pauseMillis);
            }
            return apply(o, node, 0, now);
        });
    }

    /** Extends the node's grant by a lease from now. */
    public CompletableFuture<SlotReply> renew(String node, String key, long epoch) {
        return submitFor(node, key, 0, now -> apply(ledger.renew(node, epoch, now), node, 0, now));
    }

    /** Withdraws GC request {@code gcId} (the JVM collected on its own): out of the queue, its grant given back. */
    public CompletableFuture<SlotReply> cancel(String node, String key, long gcId) {
        return submitFor(node, key, gcId, now -> apply(ledger.cancel(node, gcId, now), node, gcId, now));
    }

    /** @return members, grants, queue, recent events, as of now */
    public CompletableFuture<ClusterSnapshot> cluster() {
        CompletableFuture<ClusterSnapshot> result = new CompletableFuture<>();
        run(result, () -> {
            long now = clock.getAsLong();
            if (ledger.serving()) {
                publish(ledger.tick(now), now);
            }
            result.complete(new ClusterSnapshot(ledger.view(), recent.snapshot(), polls.size(), now,
                ledger.replicaDescription(), governor.demand(now), governor.infeasible(),
                governor.mode() == Governor.Mode.OBSERVE));
        }, null);
        return result;
    }

    /** @return the policy the ledger runs */
    public SlotPolicy policy() {
        return policy;
    }

    /** @return the load balancer the service drives */
    public LoadBalancer loadBalancer() {
        return rotation.loadBalancer();
    }

    /** @return the meters */
    public SlotMetrics metrics() {
        return metrics;
    }

    /** @return whether the service takes calls */
    public boolean isOpen() {
        return !closed;
    }

    /**
     * Stops: open long-polls are answered {@link SlotReply.Kind#UNAVAILABLE}, later calls too; waits briefly for
     * the call that runs and for load-balancer calls already made. Grants stay as they are (no node is put back in
     * rotation while it may be collecting). Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            executor.execute(() -> polls.closeAll(clock.getAsLong(), SlotReply.Kind.UNAVAILABLE,
                "the coordinator is shutting down"));
        } catch (RejectedExecutionException e) {
            // already stopped: no poll left to answer
        }
        executor.shutdown(2_000);
        rotation.shutdown(5_000);
        ledger.close();
    }

    /** {@link #submit} for a call that must carry the node's member key. */
    private CompletableFuture<SlotReply> submitFor(String node, String key, long gcId, LongFunction<SlotReply> op) {
        return submit(node, now -> keys.admits(node, key, knows(node)) ? op.apply(now) : forbidden(node, gcId, now));
    }

    /** @return whether the ledger knows {@code node}: a member, or the holder of a grant still running */
    private boolean knows(String node) {
        return members.contains(node) || ledger.grantOf(node) != null;
    }

    private static SlotReply forbidden(String node, long gcId, long now) {
        return SlotReply.of(SlotReply.Kind.FORBIDDEN, node, gcId, "this call does not carry the member key of node "
            + node + " (the key its join carried or was given): only the process that joined as " + node
            + " may act for it", now);
    }

    /** The ledger may have let go of {@code node}: when it no longer knows it, its key goes. */
    private void forgetIfGone(String node) {
        if (!knows(node)) {
            keys.forget(node);
        }
    }

    private CompletableFuture<SlotReply> submit(String node, LongFunction<SlotReply> op) {
        CompletableFuture<SlotReply> result = new CompletableFuture<>();
        run(result, () -> {
            SlotReply reply = op.apply(clock.getAsLong());
            rotation.deliver(result, reply);
        }, (kind, why) -> SlotReply.of(kind, node, 0, why, clock.getAsLong()));
        return result;
    }

    /**
     * Runs {@code task} through the executor; a failure completes {@code result} exceptionally instead of killing the
     * thread. When the call cannot be taken, {@code result} completes with {@code refused}'s answer: after
     * {@link #close()} ({@link SlotReply.Kind#UNAVAILABLE}), on a replica that is not the leader
     * ({@link SlotReply.Kind#NOT_LEADER}), when the replicated ledger does not answer ({@code UNAVAILABLE}); with a
     * {@code null} {@code refused} (the cluster view) it fails with a {@link RejectedExecutionException} after
     * close and is answered anyway elsewhere.
     */
    private <T> void run(CompletableFuture<T> result, Runnable task, BiFunction<SlotReply.Kind, String, T> refused) {
        Runnable guarded = () -> {
            try {
                if (refused != null && !ledger.serving()) {
                    result.complete(refused.apply(SlotReply.Kind.NOT_LEADER,
                        "this coordinator replica is not the leader; try another"));
                    return;
                }
                task.run();
            } catch (ReplicatedLedger.LedgerUnavailableException e) {
                if (refused != null) {
                    result.complete(refused.apply(SlotReply.Kind.UNAVAILABLE, e.getMessage()));
                } else {
                    result.completeExceptionally(e);
                }
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.ERROR, "slot service call failed", e);
                result.completeExceptionally(e);
            }
        };
        try {
            if (closed) {
                throw new RejectedExecutionException("the coordinator is shutting down");
            }
            executor.execute(guarded);
        } catch (RejectedExecutionException e) {
            if (refused != null) {
                result.complete(refused.apply(SlotReply.Kind.UNAVAILABLE, "the coordinator is shutting down"));
            } else {
                result.completeExceptionally(e);
            }
        }
    }

    private SlotReply apply(Outcome outcome, String node, long gcId, long now) {
        publish(outcome.events(), now);
        return SlotReply.of(outcome, node, gcId, now);
    }

    private void tick() {
        if (closed) {
            return;
        }
        try {
            long now = clock.getAsLong();
            boolean was = serving;
            serving = ledger.serving();
            if (serving && !was) {
                takeOver(now);
            } else if (!serving && was) {
                keys.clear();
                polls.closeAll(now, SlotReply.Kind.NOT_LEADER, "this coordinator replica is no longer the leader");
            }
            if (serving) {
                publish(ledger.tick(now), now);
                int live = ledger.memberCount();
                Governor.Mode before = governor.mode();
                for (String line : governor.judge(Math.max(0, Math.min(policy.allowance(live),
                        live - policy.minHealthy())), now)) {
                    LOG.log(governor.infeasible() || governor.mode() == Governor.Mode.OBSERVE
                        ? System.Logger.Level.WARNING : System.Logger.Level.INFO, line);
                }
                if (before == Governor.Mode.HIDE && governor.mode() == Governor.Mode.OBSERVE) {
                    withdrawQueue(now);
                }
            }
            metrics.gauges(ledger.memberCount(), ledger.collectingCount(), ledger.queueLength(), polls.size(),
                governor.demand(now), governor.infeasible(), governor.mode() == Governor.Mode.OBSERVE);
        } catch (ReplicatedLedger.LedgerUnavailableException e) {
            LOG.log(System.Logger.Level.WARNING, "slot tick: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "slot tick failed", e);
        } finally {
            if (!closed) {
                try {
                    executor.schedule(this::tick, tickMillis);
                } catch (RejectedExecutionException e) {
                    // shutting down
                }
            }
        }
    }

    /**
     * This replica starts serving (it became the ready Raft leader): the members as the ledger has them, and the load
     * balancer set to match the ledger, since the previous leader may have died between a ledger change and its
     * load-balancer call. It knows no member key: each member's is adopted from its first call.
     */
    private void takeOver(long now) {
        SlotView view = ledger.view();
        keys.clear();
        members.clear();
        members.addAll(view.members());
        rotation.takeOver(view.collecting(), view.members());
        LOG.log(System.Logger.Level.INFO, "serving as the leader: " + view.members().size() + " members, "
            + view.collecting().size() + " collecting (" + ledger.replicaDescription() + ")");
    }

    /** Everything that follows from ledger events: recent events, meters, the load balancer, long-polls. */
    private void publish(List<SlotEvent> events, long now) {
        for (SlotEvent e : events) {
            recent.add(e);
            metrics.event(e);
            governor.event(e);
            invitations.event(e);
            switch (e.type()) {
                case JOINED -> members.add(e.node());
                case LEFT, LOST -> {
                    members.remove(e.node());
                    polls.answer(e.node(), -1, SlotReply.of(SlotReply.Kind.UNKNOWN_NODE, e.node(), 0,
                        "node " + e.node() + (e.type() == SlotEvent.Type.LEFT ? " left" : " was lost: " + e.detail()),
                        now));
                    forgetIfGone(e.node());
                }
                case GRANTED -> {
                    rotation.granted(e);
                    Grant grant = new Grant(e.node(), e.gcId(), e.epoch(), e.at(),
                        SlotLedger.saturatedAdd(e.at(), policy.leaseMillis()),
                        SlotLedger.FULL_DETAIL.equals(e.detail()));
                    polls.answer(e.node(), e.gcId(), SlotReply.granted(grant, now));
                }
                case RELEASED, EXPIRED -> {
                    rotation.ended(e);
                    forgetIfGone(e.node());
                }
                case CANCELLED -> {
                    if (e.epoch() != 0) {
                        rotation.ended(e);
                        forgetIfGone(e.node());
                    }
                    polls.answer(e.node(), e.gcId(), SlotReply.of(SlotReply.Kind.CANCELLED, e.node(), e.gcId(),
                        "GC request " + e.gcId() + " was cancelled", now));
                }
                default -> {
                }
            }
        }
    }

    /**
     * The coordinator has stepped down: every request queued is withdrawn, once (its long-poll is answered
     * {@link SlotReply.Kind#CANCELLED}, and the node's next acquire {@link SlotReply.Kind#UNSCHEDULED}), so that
     * acquires while it observes need no ledger write.
     */
    private void withdrawQueue(long now) {
        for (QueueEntry q : ledger.view().queue()) {
            publish(ledger.cancel(q.node(), q.gcId(), now).events(), now);
        }
    }

    /**
     * The coordinator observes: {@code node}'s request {@code gcId} gets no slot (the ledger is not asked).
     *
     * @return {@link SlotReply.Kind#UNSCHEDULED}, or {@link SlotReply.Kind#UNKNOWN_NODE} for a node that is no member
     */
    private SlotReply unscheduled(String node, long gcId, long now) {
        if (!members.contains(node)) {
            return SlotReply.of(SlotReply.Kind.UNKNOWN_NODE, node, gcId,
                "node " + node + " is not a member; join first", now);
        }
        governor.unscheduled(node, gcId, now);
        return SlotReply.of(SlotReply.Kind.UNSCHEDULED, node, gcId, String.format(Locale.ROOT, "the coordinator has"
            + " stepped down: hiding collections costs more than it saves at this load (the slot demand %.2f), so the"
            + " JVM collects on its own", governor.demand(now)), now);
    }
}
