package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotLedger;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.Status;
import io.bladegc.coordinator.lb.LoadBalancer;
import io.bladegc.coordinator.lb.NoLoadBalancer;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The coordinator's slots: owns the {@link SlotLedger} and runs every call to it on one thread (the {@link
 * SlotExecutor}), ticks it every {@link #TICK_MILLIS} ms, keeps the acquire long-polls, the recent events and the
 * gauges, and drives the load balancer through {@link Rotation}.
 *
 * <p>Thread-safe: every public method may be called from any thread; it hands the work to the slot thread and
 * answers with a future, which completes on the slot thread or, for a grant, on the load-balancer thread once the
 * node is out of rotation. After {@link #close()} the futures complete with {@link SlotReply.Kind#UNAVAILABLE}
 * ({@link #cluster()} exceptionally, with a {@link RejectedExecutionException}).
 */
public final class SlotService implements AutoCloseable {
    /** How often the ledger is ticked (expiries, lost members, grants to the queue), milliseconds. */
    public static final long TICK_MILLIS = 100;
    /** How many recent events {@link #cluster()} reports. */
    public static final int RECENT_EVENTS = 256;

    private static final System.Logger LOG = System.getLogger(SlotService.class.getName());

    /** An acquire waiting for its grant. Slot thread only. */
    private static final class Poll {
        final String node;
        final long gcId;
        final CompletableFuture<SlotReply> future;
        SlotExecutor.Cancellable timeout = () -> { };

        Poll(String node, long gcId, CompletableFuture<SlotReply> future) {
            this.node = node;
            this.gcId = gcId;
            this.future = future;
        }
    }

    private final SlotLedger ledger;
    private final SlotPolicy policy;
    private final LongSupplier clock;
    private final SlotExecutor executor;
    private final Rotation rotation;
    private final SlotMetrics metrics;
    private final int maxMembers;
    private final long tickMillis;
    private final Map<String, Poll> polls = new HashMap<>();
    private final Set<String> members = new HashSet<>();
    private final RecentEvents recent = new RecentEvents(RECENT_EVENTS);
    private volatile boolean closed;

    private SlotService(Builder b) {
        this.policy = b.policy;
        this.clock = b.clock;
        this.ledger = b.holdMillis < 0 ? new SlotLedger(b.policy)
            : new SlotLedger(b.policy, b.epochsAbove, saturatedAdd(clock.getAsLong(), b.holdMillis));
        this.executor = b.executor != null ? b.executor : SlotExecutor.singleThread("blade-coordinator-slots");
        this.metrics = b.metrics != null ? b.metrics : new SlotMetrics();
        Executor lbCalls = b.loadBalancerCalls;
        if (lbCalls == null) {
            lbCalls = b.loadBalancer instanceof NoLoadBalancer ? Runnable::run // nothing to block on: no extra hop
                : Executors.newSingleThreadExecutor(t -> {
                    Thread thread = new Thread(t, "blade-coordinator-lb");
                    thread.setDaemon(true);
                    return thread;
                });
        }
        this.rotation = new Rotation(b.loadBalancer, lbCalls, metrics);
        this.maxMembers = b.maxMembers;
        this.tickMillis = b.tickMillis;
        executor.schedule(this::tick, tickMillis);
    }

    /** @return a builder with the defaults: {@link SlotPolicy#defaults()}, a monotonic clock, no load balancer */
    public static Builder builder() {
        return new Builder();
    }

    /** Adds {@code node} as a member, or refreshes it. */
    public CompletableFuture<SlotReply> join(String node) {
        return submit(node, now -> {
            if (!members.contains(node) && members.size() >= maxMembers) {
                return SlotReply.of(SlotReply.Kind.UNAVAILABLE, node, 0,
                    "member limit reached (" + maxMembers + " members)", now);
            }
            return apply(ledger.join(node, now), node, 0, now);
        });
    }

    /** Marks {@code node} alive. */
    public CompletableFuture<SlotReply> heartbeat(String node) {
        return submit(node, now -> apply(ledger.heartbeat(node, now), node, 0, now));
    }

    /** Removes {@code node}; its queued request goes, a grant it holds is given back. */
    public CompletableFuture<SlotReply> leave(String node) {
        return submit(node, now -> apply(ledger.leave(node, now), node, 0, now));
    }

    /**
     * Asks for a slot. When the node is queued and {@code waitMillis > 0}, the answer waits until the node is granted
     * (after it was taken out of rotation), its request is gone, or {@code waitMillis} passed (then: its queue
     * position). A newer acquire from the same node answers an older one that still waits.
     */
    public CompletableFuture<SlotReply> acquire(String node, long gcId, long leadMillis, long waitMillis) {
        CompletableFuture<SlotReply> result = new CompletableFuture<>();
        run(result, () -> {
            long now = clock.getAsLong();
            Poll previous = polls.remove(node);
            if (previous != null) {
                previous.timeout.cancel();
            }
            SlotReply reply = apply(ledger.acquire(node, gcId, leadMillis, now), node, gcId, now);
            if (previous != null) {
                rotation.deliver(previous.future, reply);
            }
            if (reply.kind() == SlotReply.Kind.QUEUED && waitMillis > 0 && !closed) {
                Poll poll = new Poll(node, gcId, result);
                polls.put(node, poll);
                poll.timeout = executor.schedule(() -> pollTimedOut(poll), waitMillis);
                result.whenComplete((r, e) -> {
                    if (result.isCancelled()) { // the client went away: forget the poll, keep the queued request
                        runQuietly(() -> forget(poll));
                    }
                });
            } else {
                rotation.deliver(result, reply);
            }
        }, () -> shuttingDown(node, gcId));
        return result;
    }

    /** Gives a grant back after collecting; {@code pauseMillis} is the measured pause. */
    public CompletableFuture<SlotReply> release(String node, long epoch, long pauseMillis) {
        return submit(node, now -> {
            Outcome o = ledger.release(node, epoch, pauseMillis, now);
            if (o.status() == Status.OK) {
                metrics.pause(pauseMillis);
            }
            return apply(o, node, 0, now);
        });
    }

    /** Extends the node's grant by a lease from now. */
    public CompletableFuture<SlotReply> renew(String node, long epoch) {
        return submit(node, now -> apply(ledger.renew(node, epoch, now), node, 0, now));
    }

    /** Withdraws GC request {@code gcId} (the JVM collected on its own): out of the queue, its grant given back. */
    public CompletableFuture<SlotReply> cancel(String node, long gcId) {
        return submit(node, now -> apply(ledger.cancel(node, gcId, now), node, gcId, now));
    }

    /** @return members, grants, queue, recent events, as of now */
    public CompletableFuture<ClusterSnapshot> cluster() {
        CompletableFuture<ClusterSnapshot> result = new CompletableFuture<>();
        run(result, () -> {
            long now = clock.getAsLong();
            publish(ledger.tick(now), now);
            result.complete(new ClusterSnapshot(ledger.view(), recent.snapshot(), polls.size(), now));
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
     * the slot thread and for load-balancer calls already made. Grants stay as they are (no node is put back in
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
        runQuietly(() -> {
            long now = clock.getAsLong();
            for (Poll p : List.copyOf(polls.values())) {
                p.timeout.cancel();
                p.future.complete(SlotReply.of(SlotReply.Kind.UNAVAILABLE, p.node, p.gcId,
                    "the coordinator is shutting down", now));
            }
            polls.clear();
        });
        executor.shutdown(2_000);
        rotation.shutdown(5_000);
    }

    private CompletableFuture<SlotReply> submit(String node, LongFunction<SlotReply> op) {
        CompletableFuture<SlotReply> result = new CompletableFuture<>();
        run(result, () -> {
            SlotReply reply = op.apply(clock.getAsLong());
            rotation.deliver(result, reply);
        }, () -> shuttingDown(node, 0));
        return result;
    }

    /**
     * Runs {@code task} on the slot thread; a failure completes {@code result} exceptionally instead of killing the
     * thread. After {@link #close()}, {@code result} completes with {@code whenClosed}'s answer, or, when that is
     * {@code null}, fails with a {@link RejectedExecutionException}.
     */
    private <T> void run(CompletableFuture<T> result, Runnable task, Supplier<T> whenClosed) {
        Runnable guarded = () -> {
            try {
                task.run();
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
            if (whenClosed != null) {
                result.complete(whenClosed.get());
            } else {
                result.completeExceptionally(e);
            }
        }
    }

    private SlotReply shuttingDown(String node, long gcId) {
        return SlotReply.of(SlotReply.Kind.UNAVAILABLE, node, gcId, "the coordinator is shutting down",
            clock.getAsLong());
    }

    private void runQuietly(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // shutting down: nothing left to tidy
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
            publish(ledger.tick(now), now);
            metrics.gauges(ledger.memberCount(), ledger.collectingCount(), ledger.queueLength(), polls.size());
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

    /** Everything that follows from ledger events: recent events, meters, the load balancer, long-polls. */
    private void publish(List<SlotEvent> events, long now) {
        for (SlotEvent e : events) {
            recent.add(e);
            metrics.event(e);
            switch (e.type()) {
                case JOINED -> members.add(e.node());
                case LEFT, LOST -> {
                    members.remove(e.node());
                    endPoll(e.node(), -1, SlotReply.of(SlotReply.Kind.UNKNOWN_NODE, e.node(), 0,
                        "node " + e.node() + (e.type() == SlotEvent.Type.LEFT ? " left" : " was lost: " + e.detail()),
                        now));
                }
                case GRANTED -> {
                    rotation.granted(e);
                    Grant grant = new Grant(e.node(), e.gcId(), e.epoch(), e.at(),
                        saturatedAdd(e.at(), policy.leaseMillis()));
                    endPoll(e.node(), e.gcId(), SlotReply.granted(grant, now));
                }
                case RELEASED, EXPIRED -> rotation.ended(e);
                case CANCELLED -> {
                    if (e.epoch() != 0) {
                        rotation.ended(e);
                    }
                    endPoll(e.node(), e.gcId(), SlotReply.of(SlotReply.Kind.CANCELLED, e.node(), e.gcId(),
                        "GC request " + e.gcId() + " was cancelled", now));
                }
                default -> {
                }
            }
        }
    }

    /** Answers the node's poll, if it waits for {@code gcId} (any request when {@code gcId} is -1). */
    private void endPoll(String node, long gcId, SlotReply reply) {
        Poll p = polls.get(node);
        if (p != null && (gcId == -1 || p.gcId == gcId)) {
            polls.remove(node);
            p.timeout.cancel();
            rotation.deliver(p.future, reply);
        }
    }

    private void pollTimedOut(Poll poll) {
        if (polls.get(poll.node) != poll) {
            return;
        }
        long now = clock.getAsLong();
        publish(ledger.tick(now), now); // what time decided up to now may grant this very poll
        if (polls.get(poll.node) != poll) {
            return;
        }
        polls.remove(poll.node);
        rotation.deliver(poll.future, standing(poll.node, poll.gcId, now));
    }

    /** Where the node's request stands: granted, queued at a position, or gone. */
    private SlotReply standing(String node, long gcId, long now) {
        Grant g = ledger.grantOf(node);
        if (g != null && g.gcId() == gcId) {
            return SlotReply.granted(g, now);
        }
        int position = ledger.queuePosition(node, gcId);
        if (position > 0) {
            return SlotReply.queued(node, gcId, position, now);
        }
        return SlotReply.of(SlotReply.Kind.CANCELLED, node, gcId, "GC request " + gcId + " is no longer queued", now);
    }

    private void forget(Poll poll) {
        if (polls.get(poll.node) == poll) {
            polls.remove(poll.node);
            poll.timeout.cancel();
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** Builds a {@link SlotService}; every setting has a default. */
    public static final class Builder {
        private SlotPolicy policy = SlotPolicy.defaults();
        private LongSupplier clock = monotonicMillis();
        private SlotExecutor executor;
        private Executor loadBalancerCalls;
        private LoadBalancer loadBalancer = new NoLoadBalancer();
        private SlotMetrics metrics;
        private int maxMembers = 100_000;
        private long tickMillis = TICK_MILLIS;
        private long epochsAbove;
        private long holdMillis = -1;

        private Builder() {
        }

        /**
         * Makes the service the successor of a coordinator whose ledger is lost (a restart): its epochs are greater
         * than {@code epochsAbove}, and it grants nothing for {@code holdMillis} from when it is built (requests
         * queue), so leases the predecessor granted run out first. Default: no predecessor (epochs from 1, grants at
         * once).
         */
        public Builder successorOf(long epochsAbove, long holdMillis) {
            if (epochsAbove < 0 || holdMillis < 0) {
                throw new IllegalArgumentException("epochsAbove and holdMillis must not be negative");
            }
            this.epochsAbove = epochsAbove;
            this.holdMillis = holdMillis;
            return this;
        }

        /** The ledger's policy; default {@link SlotPolicy#defaults()}. */
        public Builder policy(SlotPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** The clock in milliseconds; default: wall time at start plus a monotonic clock since. */
        public Builder clock(LongSupplier millis) {
            this.clock = Objects.requireNonNull(millis, "clock");
            return this;
        }

        /** The clock; default: wall time at start plus a monotonic clock since. */
        public Builder clock(Clock clock) {
            Objects.requireNonNull(clock, "clock");
            return clock(clock::millis);
        }

        /** The slot thread; default one daemon thread named {@code blade-coordinator-slots}. */
        public Builder executor(SlotExecutor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Where load-balancer calls run, in order; default one daemon thread named {@code blade-coordinator-lb}
         * (the slot thread itself for {@link NoLoadBalancer}, which does nothing).
         */
        public Builder loadBalancerCalls(Executor calls) {
            this.loadBalancerCalls = Objects.requireNonNull(calls, "calls");
            return this;
        }

        /** The load balancer; default {@link NoLoadBalancer}. */
        public Builder loadBalancer(LoadBalancer loadBalancer) {
            this.loadBalancer = Objects.requireNonNull(loadBalancer, "loadBalancer");
            return this;
        }

        /** The meters; default a fresh Prometheus registry. */
        public Builder metrics(SlotMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /** Joins beyond this many members are refused ({@link SlotReply.Kind#UNAVAILABLE}); default 100,000. */
        public Builder maxMembers(int maxMembers) {
            if (maxMembers < 1) {
                throw new IllegalArgumentException("maxMembers must be positive: " + maxMembers);
            }
            this.maxMembers = maxMembers;
            return this;
        }

        /** The tick interval; default {@link #TICK_MILLIS}. */
        public Builder tickMillis(long tickMillis) {
            if (tickMillis < 1) {
                throw new IllegalArgumentException("tickMillis must be positive: " + tickMillis);
            }
            this.tickMillis = tickMillis;
            return this;
        }

        /** @return the service, ticking */
        public SlotService build() {
            return new SlotService(this);
        }

        private static LongSupplier monotonicMillis() {
            long wallAtStart = System.currentTimeMillis();
            long nanoAtStart = System.nanoTime();
            return () -> wallAtStart + (System.nanoTime() - nanoAtStart) / 1_000_000;
        }
    }
}
