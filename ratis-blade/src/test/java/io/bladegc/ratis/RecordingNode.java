package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.BladeNode;
import io.bladegc.api.DrainedCollection;
import io.bladegc.api.Gate;
import io.bladegc.api.GcHandler;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.Generation;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ObjLongConsumer;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;

/**
 * Records each collection, whether the peer led any group (but the slot group) at that moment, and whether its gate
 * was open then (the recording node's own drain does not close it: a closed gate was closed by its caller). Each
 * collection pauses 3 ms (young), told to the pause listeners as a real node's GC notifications tell them;
 * {@link #paused} tells them a pause of the JVM's own.
 */
final class RecordingNode implements BladeNode {
    private final RaftServer server;
    private final RaftGroupId skip;
    final AtomicLong collections = new AtomicLong();
    final List<Boolean> ledAtCollection = new CopyOnWriteArrayList<>();
    final List<Boolean> gateOpenAtCollection = new CopyOnWriteArrayList<>();
    private final Gate gate = new Gate();
    private final AtomicLong pause = new AtomicLong();
    private final List<ObjLongConsumer<Generation>> pauseListeners = new CopyOnWriteArrayList<>();

    /**
     * @param skip   a group whose leadership is not recorded (the slot group), or {@code null}
     * @param server the peer
     */
    RecordingNode(RaftGroupId skip, RaftServer server) {
        this.skip = skip;
        this.server = server;
    }

    @Override
    public DrainedCollection drainAndCollect(long id) {
        return new DrainedCollection(startGc(id), Duration.ZERO, Duration.ofMillis(3), true);
    }

    @Override
    public long collections() {
        return collections.get();
    }

    /** What {@link #leadTimeMillis()} answers; -1 (none) unless a test sets it. */
    final AtomicLong lead = new AtomicLong(-1);

    @Override
    public long leadTimeMillis() {
        return lead.get();
    }

    @Override
    public GcOutcome startGc(long id) {
        try {
            for (RaftGroupId g : server.getGroupIds()) {
                if (g.equals(skip)) {
                    continue;
                }
                ledAtCollection.add(server.getDivision(g).getInfo().isLeader());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        gateOpenAtCollection.add(gate.isOpen());
        collections.incrementAndGet();
        paused(Generation.YOUNG, 3_000_000);
        return GcOutcome.COLLECTED;
    }

    /** A pause of {@code nanos}, as the JVM's GC notification would report it. */
    void paused(Generation generation, long nanos) {
        pause.addAndGet(nanos);
        for (ObjLongConsumer<Generation> l : pauseListeners) {
            l.accept(generation, nanos);
        }
    }

    @Override
    public Runnable addPauseListener(ObjLongConsumer<Generation> listener) {
        pauseListeners.add(listener);
        return () -> pauseListeners.remove(listener);
    }

    void awaitCollections(long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (collections.get() < n) {
            assertThat(System.nanoTime()).as("%d collections", n).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Override
    public long pauseNanos() {
        return pause.get();
    }

    @Override
    public Gate gate() {
        return gate;
    }

    /** The handler registered last, or {@code null}. */
    volatile GcHandler registered;

    @Override
    public void register(GcHandler handler) {
        registered = handler;
    }

    @Override
    public Duration retryAfter() {
        return Duration.ZERO;
    }

    @Override
    public void attachGate() {
    }

    @Override
    public void detachGate() {
    }

    @Override
    public String summary() {
        return "recording node";
    }
}
