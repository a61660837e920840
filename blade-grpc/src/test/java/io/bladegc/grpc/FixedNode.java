package io.bladegc.grpc;

import io.bladegc.api.BladeNode;
import io.bladegc.api.DrainedCollection;
import io.bladegc.api.GcHandler;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.Gate;
import java.time.Duration;
import java.util.function.Supplier;

/** A node with a real gate and a retry hint the test fixes, and nothing else: the node's own drains stay out. */
final class FixedNode implements BladeNode {
    private final Gate gate = new Gate();
    private final Supplier<Duration> retryAfter;
    private volatile GcHandler handler;

    FixedNode(Supplier<Duration> retryAfter) {
        this.retryAfter = retryAfter;
    }

    @Override
    public Gate gate() {
        return gate;
    }

    @Override
    public Duration retryAfter() {
        return retryAfter.get();
    }

    @Override
    public void register(GcHandler handler) {
        this.handler = handler;
    }

    @Override
    public boolean coordinated() {
        return handler != null;
    }

    @Override
    public GcOutcome startGc(long id) {
        throw new UnsupportedOperationException();
    }

    @Override
    public DrainedCollection drainAndCollect(long id) {
        throw new UnsupportedOperationException();
    }

    @Override
    public long pauseNanos() {
        return 0;
    }

    @Override
    public void attachGate() {
    }

    @Override
    public void detachGate() {
    }

    @Override
    public String summary() {
        return "fixed";
    }
}
