package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotLedger;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.coordinator.lb.LoadBalancer;
import io.bladegc.coordinator.lb.NoLoadBalancer;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

/**
 * Builds a {@link SlotService} ({@link SlotService#builder()}); every setting has a default. Not thread-safe: one
 * thread configures and builds.
 */
public final class SlotServiceBuilder {
    private SlotPolicy policy = SlotPolicy.defaults();
    private LongSupplier clock = monotonicMillis();
    private SlotExecutor executor;
    private Executor loadBalancerCalls;
    private LoadBalancer loadBalancer = new NoLoadBalancer();
    private SlotMetrics metrics;
    private int maxMembers = 100_000;
    private long tickMillis = SlotService.TICK_MILLIS;
    private long epochsAbove;
    private long holdMillis = -1;
    private ReplicatedLedger replicated;

    SlotServiceBuilder() {
    }

    /**
     * Makes the service the successor of a coordinator whose ledger is lost (a restart): its epochs are greater than
     * {@code epochsAbove}, and it grants nothing for {@code holdMillis} from when it is built (requests queue), so
     * leases the predecessor granted run out first. Default: no predecessor (epochs from 1, grants at once).
     */
    public SlotServiceBuilder successorOf(long epochsAbove, long holdMillis) {
        if (epochsAbove < 0 || holdMillis < 0) {
            throw new IllegalArgumentException("epochsAbove and holdMillis must not be negative");
        }
        this.epochsAbove = epochsAbove;
        this.holdMillis = holdMillis;
        return this;
    }

    /**
     * Runs the service on a ledger replicated among coordinator replicas instead of one in this process; the service
     * then answers node calls only while this replica is the Raft leader. The policy must be the one the replicas'
     * state machines run. Default: a local ledger.
     */
    public SlotServiceBuilder replicated(ReplicatedLedger ledger) {
        this.replicated = Objects.requireNonNull(ledger, "ledger");
        return this;
    }

    /** The ledger's policy; default {@link SlotPolicy#defaults()}. */
    public SlotServiceBuilder policy(SlotPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        return this;
    }

    /** The clock in milliseconds; default: wall time at start plus a monotonic clock since. */
    public SlotServiceBuilder clock(LongSupplier millis) {
        this.clock = Objects.requireNonNull(millis, "clock");
        return this;
    }

    /** The clock; default: wall time at start plus a monotonic clock since. */
    public SlotServiceBuilder clock(Clock clock) {
        Objects.requireNonNull(clock, "clock");
        return clock(clock::millis);
    }

    /**
     * What runs the ledger calls; default a {@link SerialSlotExecutor} (calls run on the caller's thread, one at a
     * time; ticks and long-poll timeouts wait on one daemon thread named {@code blade-coordinator-slots}).
     */
    public SlotServiceBuilder executor(SlotExecutor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Where load-balancer calls run, in order; default one daemon thread named {@code blade-coordinator-lb} (the slot
     * thread itself for {@link NoLoadBalancer}, which does nothing).
     */
    public SlotServiceBuilder loadBalancerCalls(Executor calls) {
        this.loadBalancerCalls = Objects.requireNonNull(calls, "calls");
        return this;
    }

    /** The load balancer; default {@link NoLoadBalancer}. */
    public SlotServiceBuilder loadBalancer(LoadBalancer loadBalancer) {
        this.loadBalancer = Objects.requireNonNull(loadBalancer, "loadBalancer");
        return this;
    }

    /** The meters; default a fresh Prometheus registry. */
    public SlotServiceBuilder metrics(SlotMetrics metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        return this;
    }

    /** Joins beyond this many members are refused ({@link SlotReply.Kind#UNAVAILABLE}); default 100,000. */
    public SlotServiceBuilder maxMembers(int maxMembers) {
        if (maxMembers < 1) {
            throw new IllegalArgumentException("maxMembers must be positive: " + maxMembers);
        }
        this.maxMembers = maxMembers;
        return this;
    }

    /** The tick interval; default {@link SlotService#TICK_MILLIS}. */
    public SlotServiceBuilder tickMillis(long tickMillis) {
        if (tickMillis < 1) {
            throw new IllegalArgumentException("tickMillis must be positive: " + tickMillis);
        }
        this.tickMillis = tickMillis;
        return this;
    }

    /** @return the service, ticking */
    public SlotService build() {
        Ledger ledger = replicated != null ? replicated : new LocalLedger(holdMillis < 0 ? new SlotLedger(policy)
            : new SlotLedger(policy, epochsAbove, SlotLedger.saturatedAdd(clock.getAsLong(), holdMillis)));
        SlotExecutor slots = executor != null ? executor : new SerialSlotExecutor("blade-coordinator-slots");
        SlotMetrics meters = metrics != null ? metrics : new SlotMetrics();
        Executor lbCalls = loadBalancerCalls;
        if (lbCalls == null) {
            lbCalls = loadBalancer instanceof NoLoadBalancer ? Runnable::run // nothing to block on: no extra hop
                : Executors.newSingleThreadExecutor(t -> {
                    Thread thread = new Thread(t, "blade-coordinator-lb");
                    thread.setDaemon(true);
                    return thread;
                });
        }
        return new SlotService(ledger, policy, clock, slots, new Rotation(loadBalancer, lbCalls, meters), meters,
            maxMembers, tickMillis);
    }

    private static LongSupplier monotonicMillis() {
        long wallAtStart = System.currentTimeMillis();
        long nanoAtStart = System.nanoTime();
        return () -> wallAtStart + (System.nanoTime() - nanoAtStart) / 1_000_000;
    }
}
