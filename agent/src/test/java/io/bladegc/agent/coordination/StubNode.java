package io.bladegc.agent.coordination;

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
import java.util.function.LongSupplier;

/**
 * A {@link BladeNode} for handler tests: {@link #drainAndCollect} records the id and the time, and reports 1 ms of
 * trailers and a 3 ms collection (3 ms of pause), or nothing collected when the drain ended past its deadline.
 * Thread-safe.
 */
public final class StubNode implements BladeNode {
    /** One drainAndCollect call, and the generation it was asked to collect. */
    public record Drain(long id, long nanos, Generation generation) {
    }

    public final List<Drain> drains = new CopyOnWriteArrayList<>();
    public final List<GcHandler> registered = new CopyOnWriteArrayList<>();
    /** Drains that ended in a collection. */
    public final AtomicLong collected = new AtomicLong();
    private final AtomicLong pauseNanos = new AtomicLong();
    private final Gate gate = new Gate();
    public volatile RuntimeException failDrain;
    /** How long each drain-and-collect takes, milliseconds (default 0). */
    public volatile long drainMillis;
    /** The JVM's collection count the node reports (default: unknown). */
    public volatile LongSupplier collections = () -> -1;
    /** The lead time the node reports (default: unknown). */
    public volatile LongSupplier leadTimeMillis = () -> -1;

    public List<Long> drainedIds() {
        return drains.stream().map(Drain::id).toList();
    }

    @Override
    public Gate gate() {
        return gate;
    }

    @Override
    public void register(GcHandler handler) {
        registered.add(handler);
    }

    @Override
    public GcOutcome startGc(long id) {
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

    /** As a node does: a drain that ends past {@code collectByNanos} collects nothing ({@link GcOutcome#TOO_LATE}). */
    @Override
    public DrainedCollection drainAndCollect(long id, Generation generation, long collectByNanos) {
        drains.add(new Drain(id, System.nanoTime(), generation));
        if (drainMillis > 0) {
            try {
                Thread.sleep(drainMillis);
            } catch (InterruptedException ie) {
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
        pauseNanos.addAndGet(3_000_000);
        collected.incrementAndGet();
        return new DrainedCollection(GcOutcome.COLLECTED, Duration.ofMillis(1), Duration.ofMillis(3), true);
    }

    @Override
    public Duration retryAfter() {
        return Duration.ZERO;
    }

    @Override
    public long pauseNanos() {
        return pauseNanos.get();
    }

    @Override
    public long collections() {
        return collections.getAsLong();
    }

    @Override
    public long leadTimeMillis() {
        return leadTimeMillis.getAsLong();
    }

    @Override
    public void attachGate() {
    }

    @Override
    public void detachGate() {
    }

    @Override
    public String summary() {
        return "Blade: stub node";
    }
}
