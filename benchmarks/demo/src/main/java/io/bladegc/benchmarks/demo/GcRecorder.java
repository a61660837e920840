package io.bladegc.benchmarks.demo;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Records every GC notification of every {@link GarbageCollectorMXBean} of this JVM, independently of Blade, so a
 * test or the demo can audit what Blade says against what the JVM did. Records everything (pauses, concurrent
 * cycles, forced collections); the reader decides which entries are pauses.
 *
 * <p>Thread-safe. Keeps at most {@value #CAPACITY} events; later ones are counted in {@link #dropped()}.
 */
public final class GcRecorder implements NotificationListener, AutoCloseable {
    static final int CAPACITY = 100_000;

    /**
     * One GC notification.
     *
     * @param gc         the collector bean's name, e.g. {@code G1 Young Generation}
     * @param action     e.g. {@code end of minor GC}
     * @param cause      e.g. {@code G1 Evacuation Pause}, {@code System.gc()}
     * @param id         the collector's own sequence number of this collection
     * @param startMs    start, in milliseconds of JVM uptime
     * @param endMs      end, in milliseconds of JVM uptime
     * @param durationMs the duration the JVM reports
     * @param wallEndMs  the notification's time stamp: wall-clock milliseconds, set by the JVM when it queued the
     *                   notification at the end of the collection, so that pauses of different JVMs on one machine
     *                   can be compared (uptime-based times cannot)
     */
    public record GcEvent(String gc, String action, String cause, long id, long startMs, long endMs,
                          long durationMs, long wallEndMs) {
        /** @return the event as a JSON-friendly map with the field names of the demo's {@code /stats} */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("gc", gc);
            m.put("action", action);
            m.put("cause", cause);
            m.put("id", id);
            m.put("startMs", startMs);
            m.put("endMs", endMs);
            m.put("durationMs", durationMs);
            m.put("wallEndMs", wallEndMs);
            return m;
        }
    }

    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final List<GcEvent> events = new ArrayList<>();
    private long dropped;

    /** Starts listening on every collector bean. */
    public GcRecorder() {
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter) {
                NotificationEmitter emitter = (NotificationEmitter) bean;
                emitter.addNotificationListener(this, null, null);
                emitters.add(emitter);
            }
        }
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        GcInfo gc = info.getGcInfo();
        GcEvent event = new GcEvent(info.getGcName(), info.getGcAction(), info.getGcCause(), gc.getId(),
            gc.getStartTime(), gc.getEndTime(), gc.getDuration(), notification.getTimeStamp());
        synchronized (this) {
            if (events.size() < CAPACITY) {
                events.add(event);
            } else {
                dropped++;
            }
        }
    }

    /** @return a copy of the events recorded since the start or the last {@link #reset()}, oldest first */
    public synchronized List<GcEvent> events() {
        return new ArrayList<>(events);
    }

    /** @return events not recorded because the buffer was full */
    public synchronized long dropped() {
        return dropped;
    }

    /** Forgets the recorded events. */
    public synchronized void reset() {
        events.clear();
        dropped = 0;
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(this);
            } catch (ListenerNotFoundException e) {
                // already removed
            }
        }
        emitters.clear();
    }
}
