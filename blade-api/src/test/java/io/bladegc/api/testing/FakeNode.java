package io.bladegc.api.testing;

import io.bladegc.api.BladeNode;
import io.bladegc.api.DrainedCollection;
import io.bladegc.api.Gate;
import io.bladegc.api.GcHandler;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.Generation;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/**
 * The one fake {@link BladeNode} of the modules' unit tests (a test-jar of blade-api): a real {@link Gate}, and
 * collections that only record. Each collection ({@link #startGc}, or {@link #drainAndCollect} after its drain)
 * counts in {@link #collections}, is recorded with whether the gate was open then, runs {@link #onCollect}, and
 * pauses 3 ms (young), told to the pause listeners as a real node's GC notifications tell them; its drain reports
 * 1 ms of trailers, and one that ends past its deadline collects nothing ({@link GcOutcome#TOO_LATE}), as a node's
 * does. What the node tells (its retry hint, lead time, collection count) the test sets; it counts as coordinated
 * while a handler is registered, as a real node does. Thread-safe.
 */
public class FakeNode implements BladeNode {
    /** The pause of each collection. */
    public static final long PAUSE_NANOS = 3_000_000;

    /** One drain-and-collect call: its id, when ({@link System#nanoTime()}), the generation asked for. */
    public record Drain(long id, long nanos, Generation generation) {
    }

    /** Every drain-and-collect call, in order. */
    public final List<Drain> drains = new CopyOnWriteArrayList<>();
    /** Every handler registered, in order; {@code null} where the default was restored. */
    public final List<GcHandler> registered = new CopyOnWriteArrayList<>();
    /** For each collection, whether the gate was open then (this node's drain does not close it). */
    public final List<Boolean> gateOpenAtCollection = new CopyOnWriteArrayList<>();
    /** The JVM's collection count the node reports ({@link #collections()}): each collection adds one; -1: unknown. */
    public final AtomicLong collections = new AtomicLong();
    /** The lead time the node reports, milliseconds ({@link #leadTimeMillis()}); -1 (none) by default. */
    public final AtomicLong lead = new AtomicLong(-1);
    /** How long each drain takes, milliseconds (default 0). */
    public volatile long drainMillis;
    /** The node's drain timeout ({@link #drainTimeout()}): none unless a test sets one. */
    public volatile Duration drainTimeout = Duration.ZERO;
    /** Thrown by each drain when set. */
    public volatile RuntimeException failDrain;
    /** Runs at each collection, before it is counted (a test records what else held at that moment). */
    public volatile Runnable onCollect = () -> { };

    private final Supplier<Duration> retryAfter;
    private final Gate gate = new Gate();
    private final AtomicLong pauseNanos = new AtomicLong();
    private final List<ObjLongConsumer<Generation>> pauseListeners = new CopyOnWriteArrayList<>();

    /** A node whose retry hint is zero. */
    public FakeNode() {
        this(() -> Duration.ZERO);
    }

    /** @param retryAfter the retry hint the node gives ({@link #retryAfter()}), asked each time */
    public FakeNode(Supplier<Duration> retryAfter) {
        this.retryAfter = retryAfter;
    }

    /** @return the ids of the drain-and-collect calls, in order */
    public List<Long> drainedIds() {
        return drains.stream().map(Drain::id).toList();
    }

    /** @return the handler registered last, or {@code null} (none, or the default restored) */
    public GcHandler handler() {
        return registered.isEmpty() ? null : registered.get(registered.size() - 1);
    }

    /** A pause of {@code nanos} the JVM ran, told to the pause listeners as its GC notification would tell it. */
    public void paused(Generation generation, long nanos) {
        pauseNanos.addAndGet(nanos);
        for (ObjLongConsumer<Generation> l : pauseListeners) {
            l.accept(generation, nanos);
        }
    }

    @Override
    public Gate gate() {
        return gate;
    }

    @Override
    public void register(GcHandler handler) {
        registered.add(handler);
    }

    /** @return whether a handler is registered (a coordinated node), as a real node tells it */
    @Override
    public boolean coordinated() {
        return handler() != null;
    }

    @Override
    public GcOutcome startGc(long id) {
        onCollect.run();
        gateOpenAtCollection.add(gate.isOpen());
        collections.incrementAndGet();
        paused(Generation.YOUNG, PAUSE_NANOS);
        return GcOutcome.COLLECTED;
    }

    @Override
    public DrainedCollection drainAndCollect(long id) {
        return drainAndCollect(id, Generation.YOUNG);
    }

    @Override
    public DrainedCollection drainAndCollect(long id, Generation generation) {
        return drainAndCollect(id, generation, Long.MAX_VALUE);
    }

    @Override
    public DrainedCollection drainAndCollect(long id, Generation generation, long collectByNanos) {
        drains.add(new Drain(id, System.nanoTime(), generation));
        if (drainMillis > 0) {
            try {
                Thread.sleep(drainMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RuntimeException e = failDrain;
        if (e != null) {
            throw e;
        }
        if (collectByNanos != Long.MAX_VALUE && System.nanoTime() - collectByNanos > 0) {
            return new DrainedCollection(GcOutcome.TOO_LATE, Duration.ofMillis(drainMillis), Duration.ZERO, true);
        }
        return new DrainedCollection(startGc(id), Duration.ofMillis(1), Duration.ofNanos(PAUSE_NANOS), true);
    }

    @Override
    public Duration retryAfter() {
        return retryAfter.get();
    }

    @Override
    public Duration drainTimeout() {
        return drainTimeout;
    }

    @Override
    public long pauseNanos() {
        return pauseNanos.get();
    }

    @Override
    public Runnable addPauseListener(ObjLongConsumer<Generation> listener) {
        pauseListeners.add(listener);
        return () -> pauseListeners.remove(listener);
    }

    @Override
    public long collections() {
        return collections.get();
    }

    @Override
    public long leadTimeMillis() {
        return lead.get();
    }

    @Override
    public void attachGate() {
    }

    @Override
    public void detachGate() {
    }

    @Override
    public String summary() {
        return "Blade: fake node";
    }
}
