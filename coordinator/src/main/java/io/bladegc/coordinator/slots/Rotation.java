package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.coordinator.lb.LoadBalancer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Which nodes the coordinator took out of the load balancer's rotation, and the calls that do it. A grant drains the
 * node; the end of that same grant (release, expiry, cancel; matched by epoch, so a late event about an older grant
 * never puts a collecting node back) readies it. The calls run on one load-balancer thread, in order, because they
 * may block on I/O; a node is told {@code GRANTED} only after its drain call returned (or failed: then the node's
 * 503 gate is the safety net, and the failure is logged and counted).
 *
 * <p>Not thread-safe: {@link #granted}, {@link #ended} and {@link #deliver} run as {@link SlotExecutor} tasks.
 */
final class Rotation {
    private static final System.Logger LOG = System.getLogger(Rotation.class.getName());

    private record Drain(long epoch, CompletableFuture<Void> done) {
    }

    private final LoadBalancer loadBalancer;
    private final Executor calls;
    private final SlotMetrics metrics;
    private final Map<String, Drain> drained = new HashMap<>();

    Rotation(LoadBalancer loadBalancer, Executor calls, SlotMetrics metrics) {
        this.loadBalancer = loadBalancer;
        this.calls = calls;
        this.metrics = metrics;
    }

    LoadBalancer loadBalancer() {
        return loadBalancer;
    }

    /** A grant: take the node out of rotation. */
    void granted(SlotEvent grant) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        drained.put(grant.node(), new Drain(grant.epoch(), done));
        call("drain", grant.node(), loadBalancer::drain, done);
    }

    /** A grant ended (released, expired, cancelled): back in rotation, if it was this grant that drained it. */
    void ended(SlotEvent end) {
        Drain d = drained.get(end.node());
        if (d != null && d.epoch() == end.epoch()) {
            drained.remove(end.node());
            call("ready", end.node(), loadBalancer::ready, null);
        }
    }

    /**
     * Sets the load balancer to match a ledger this process takes over (a new Raft leader): the holders of
     * {@code grants} out of rotation, every other member in. What this process drained before is forgotten.
     */
    void takeOver(List<Grant> grants, List<String> members) {
        drained.clear();
        Set<String> holders = new HashSet<>();
        for (Grant g : grants) {
            holders.add(g.node());
            CompletableFuture<Void> done = new CompletableFuture<>();
            drained.put(g.node(), new Drain(g.epoch(), done));
            call("drain", g.node(), loadBalancer::drain, done);
        }
        for (String m : members) {
            if (!holders.contains(m)) {
                call("ready", m, loadBalancer::ready, null);
            }
        }
    }

    /** Completes {@code to} with {@code reply}; a grant only once the node's drain call has returned. */
    void deliver(CompletableFuture<SlotReply> to, SlotReply reply) {
        if (reply.kind() == SlotReply.Kind.GRANTED) {
            Drain d = drained.get(reply.node());
            if (d != null && d.epoch() == reply.grant().epoch() && !d.done().isDone()) {
                d.done().thenRun(() -> to.complete(reply));
                return;
            }
        }
        to.complete(reply);
    }

    /** Waits up to {@code awaitMillis} for the calls already made, when the calls run on an executor service. */
    void shutdown(long awaitMillis) {
        if (calls instanceof ExecutorService service) {
            service.shutdown();
            try {
                service.awaitTermination(awaitMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void call(String op, String node, Consumer<String> action, CompletableFuture<Void> done) {
        Runnable task = () -> {
            try {
                action.accept(node);
            } catch (RuntimeException e) {
                metrics.lbError(op);
                LOG.log(System.Logger.Level.WARNING, "load balancer " + op + " of node " + node + " failed: "
                    + e.getMessage() + " (the node's gate still sheds new requests with 503)");
            } finally {
                if (done != null) {
                    done.complete(null);
                }
            }
        };
        try {
            calls.execute(task);
        } catch (RejectedExecutionException e) {
            metrics.lbError(op);
            LOG.log(System.Logger.Level.WARNING, "load balancer " + op + " of node " + node
                + " skipped: the coordinator is shutting down");
            if (done != null) {
                done.complete(null);
            }
        }
    }
}
