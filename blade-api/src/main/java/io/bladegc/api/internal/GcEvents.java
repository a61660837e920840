package io.bladegc.api.internal;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.bladegc.api.Generation;
import io.bladegc.api.collector.CollectorKind;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Listens to the JVM's GC notifications: one listener per collector bean, removed again by {@link #close()}.
 * Each notification becomes a {@link Collection} handed to the sink on the JVM's notification thread, and then
 * advances the count of collections seen, which {@link #awaitSeen} waits on to confirm a forced collection: when
 * {@code awaitSeen} returns, the sink has processed the collections it waited for.
 *
 * <p>Thread-safe.
 */
final class GcEvents implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("io.bladegc");

    /**
     * One collection, as its notification told it.
     *
     * @param bean        the collector bean's name
     * @param id          the bean's collection number
     * @param cause       the JVM's cause, such as "Allocation Failure" or "System.gc()"
     * @param startMs     start, in milliseconds of JVM uptime
     * @param endMs       end, in milliseconds of JVM uptime
     * @param pause       whether its duration is stop-the-world pause time
     * @param reclaims    whether it reclaimed memory (counted as a collection)
     * @param generation  young or old
     * @param workBytes   the pause model's size feature: survivors copied (young) or live bytes after (old)
     * @param promoted    bytes the old generation grew by (young collections), else 0
     * @param edenBefore  bytes eden held when the collection began
     */
    public record Collection(String bean, long id, String cause, long startMs, long endMs, boolean pause,
                             boolean reclaims, Generation generation, long workBytes, long promoted,
                             long edenBefore) {
        /** @return whether someone asked for it ({@code System.gc()}, {@code jcmd GC.run}) rather than the heap */
        public boolean explicit() {
            return kind() == GcCause.EXPLICIT;
        }

        /** @return why it ran, as far as the prediction is concerned */
        GcCause kind() {
            return GcCause.of(cause);
        }

        /** @return the duration in nanoseconds (the JVM reports milliseconds) */
        public long durationNanos() {
            return Duration.ofMillis(endMs - startMs).toNanos();
        }
    }

    private final HeapLayout layout;
    private final Consumer<Collection> sink;
    private final Map<String, Long> lastId = new ConcurrentHashMap<>();
    private final List<Runnable> removals = new ArrayList<>();
    private final Object seenLock = new Object();
    private long seen;

    private GcEvents(HeapLayout layout, Consumer<Collection> sink) {
        this.layout = layout;
        this.sink = sink;
    }

    /**
     * Starts listening.
     *
     * @param layout the JVM's heap layout
     * @param sink   receives each collection on the notification thread; must be quick and must not throw
     * @return the listener; close it to stop
     */
    public static GcEvents listen(HeapLayout layout, Consumer<Collection> sink) {
        GcEvents events = new GcEvents(layout, sink);
        synchronized (events.seenLock) {
            for (GarbageCollectorMXBean bean : layout.gcBeans()) {
                long count = Math.max(0, bean.getCollectionCount());
                events.lastId.put(bean.getName(), count);
                if (layout.kind().isCollectionBean(bean.getName())) {
                    events.seen += count;
                }
                if (bean instanceof NotificationEmitter emitter) {
                    NotificationListener l = events::handle;
                    emitter.addNotificationListener(l, n -> GarbageCollectionNotificationInfo
                        .GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()), null);
                    events.removals.add(() -> {
                        try {
                            emitter.removeNotificationListener(l);
                        } catch (ListenerNotFoundException e) {
                            // already removed
                        }
                    });
                }
            }
        }
        return events;
    }

    private void handle(Notification n, Object handback) {
        try {
            GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            Collection c = toCollection(info);
            // the sink first: whoever waits in awaitSeen (a forcing) must not end before the sink classified it
            sink.accept(c);
            if (c.reclaims()) {
                synchronized (seenLock) {
                    long previous = lastId.getOrDefault(c.bean(), 0L);
                    if (c.id() > previous) {
                        seen += c.id() - previous;
                        lastId.put(c.bean(), c.id());
                        seenLock.notifyAll();
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Blade could not process a GC notification", e);
        }
    }

    private Collection toCollection(GarbageCollectionNotificationInfo info) {
        String bean = info.getGcName();
        GcInfo gc = info.getGcInfo();
        CollectorKind kind = layout.kind();
        boolean old = kind.isOldBean(bean) || "end of major GC".equals(info.getGcAction());
        Map<String, MemoryUsage> before = gc.getMemoryUsageBeforeGc();
        Map<String, MemoryUsage> after = gc.getMemoryUsageAfterGc();
        long promoted = old ? 0 : Math.max(0, used(after, kind.oldPool()) - used(before, kind.oldPool()));
        long work;
        if (old) {
            work = after.values().stream().mapToLong(MemoryUsage::getUsed).sum();
        } else {
            work = used(after, kind.survivorPool()) + promoted;
        }
        return new Collection(bean, gc.getId(), info.getGcCause(), gc.getStartTime(), gc.getEndTime(),
            kind.isPauseBean(bean), kind.isCollectionBean(bean), old ? Generation.OLD : Generation.YOUNG, work,
            promoted, used(before, kind.edenPool()));
    }

    private static long used(Map<String, MemoryUsage> usage, String pool) {
        MemoryUsage u = pool == null ? null : usage.get(pool);
        return u == null ? 0 : u.getUsed();
    }

    /**
     * Waits until notifications for at least {@code count} collections have arrived.
     *
     * @return whether they arrived within the timeout
     */
    public boolean awaitSeen(long count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (seenLock) {
            while (seen < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    seenLock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    @Override
    public void close() {
        removals.forEach(Runnable::run);
        removals.clear();
    }
}
