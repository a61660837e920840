package io.bladegc.api.internal;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.bladegc.api.GcOutcome;
import io.bladegc.api.Generation;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Makes the JVM collect now, on the calling (Blade) thread.
 *
 * <ul>
 *   <li>Young: allocates the rest of eden in small arrays, so the JVM runs the very young collection it was about to
 *       run, only at a moment Blade chose. A {@code System.gc()} instead would be a full collection each time,
 *       many times the pause and the CPU of a young one.</li>
 *   <li>Old: {@code System.gc()}; under {@code -XX:+DisableExplicitGC} the DiagnosticCommand MBean's
 *       {@code gcRun} (what {@code jcmd GC.run} does, which that flag does not disable); if neither works, refuses.</li>
 * </ul>
 * While forcing, it remembers each collector bean's count from before, so a notification can tell a forced
 * collection from one the JVM ran on its own ({@link #isForced}).
 *
 * <p>Thread-safe; one forcing at a time (synchronized).
 */
final class GcTrigger {
    private static final System.Logger LOG = System.getLogger("io.bladegc");
    private static final int CHUNK = 32 * 1024;

    /** Where fill allocations go so that the JIT cannot prove them dead. */
    @SuppressWarnings("unused")
    private static volatile Object sink;

    private final HeapLayout layout;
    private final boolean explicitGcDisabled;
    private volatile Map<String, Long> forcingFrom;
    /** Odd while a forcing is under way; advanced at its start and at its end. */
    private volatile long forcingEpoch;

    public GcTrigger(HeapLayout layout) {
        this.layout = layout;
        this.explicitGcDisabled = vmFlag("DisableExplicitGC");
    }

    /** @return whether {@code -XX:+DisableExplicitGC} is set */
    public boolean explicitGcDisabled() {
        return explicitGcDisabled;
    }

    /** @return the boolean value of a HotSpot flag, {@code false} when it cannot be read */
    public static boolean vmFlag(String name) {
        try {
            HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return Boolean.parseBoolean(hs.getVMOption(name).getValue());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Collects and returns once the JVM reports a collection ran. Opens a forcing window, or, called again before
     * {@link #done()}, forces another collection in the same one (every collection in it counts as forced).
     *
     * @return {@code true} when a collection ran, {@code false} when this JVM refuses explicit collections
     */
    public synchronized boolean force(Generation generation) {
        return force(generation, DrainSequence.NO_DEADLINE, layout.collectionCount()) == GcOutcome.COLLECTED;
    }

    /**
     * {@link #force(Generation)} under a deadline: a young collection is started by filling eden, which takes a
     * while; a JVM paused meanwhile (SIGSTOP) must not wake to finish it past a grant's lease, so the filling stops
     * once {@code collectByNanos} ({@link System#nanoTime()}) has passed, and the JVM collects when it must, not
     * under the lease. A collection the JVM runs after the caller read {@code collectionsSeen} ends the forcing: one
     * it ran just before the filling began would otherwise be followed by a second collection of an eden the filling
     * alone filled (G1's preventive collections come early and unpredicted).
     *
     * @param collectionsSeen {@link HeapLayout#collectionCount()} when the caller decided to collect
     * @return {@link GcOutcome#COLLECTED}; {@link GcOutcome#ALREADY_COLLECTED} when the JVM collected on its own
     *     after {@code collectionsSeen} and before the forcing began; {@link GcOutcome#REFUSED} when this JVM refuses
     *     explicit collections; {@link GcOutcome#TOO_LATE} when the deadline passed first
     */
    synchronized GcOutcome force(Generation generation, long collectByNanos, long collectionsSeen) {
        if (layout.collectionCount() != collectionsSeen) {
            return GcOutcome.ALREADY_COLLECTED;
        }
        if ((forcingEpoch & 1) == 0) { // a new forcing window; a second call before done() forces again within it
            Map<String, Long> from = new HashMap<>();
            for (GarbageCollectorMXBean b : layout.gcBeans()) {
                from.put(b.getName(), b.getCollectionCount());
            }
            forcingFrom = from;
            forcingEpoch++; // odd: forcing (one writer: this method and done() are called by the one forcing thread)
        }
        if (generation == Generation.YOUNG) {
            Fill fill = fillEden(collectionsSeen, collectByNanos);
            if (fill != Fill.NO_COLLECTION) {
                return fill == Fill.COLLECTED ? GcOutcome.COLLECTED : GcOutcome.TOO_LATE;
            }
        }
        if (past(collectByNanos)) {
            return GcOutcome.TOO_LATE;
        }
        return explicit(collectionsSeen) ? GcOutcome.COLLECTED : GcOutcome.REFUSED;
    }

    private static boolean past(long collectByNanos) {
        return collectByNanos != DrainSequence.NO_DEADLINE && System.nanoTime() - collectByNanos > 0;
    }

    /** How filling eden ended. */
    private enum Fill { COLLECTED, NO_COLLECTION, TOO_LATE }

    /** Ends the forcing window opened by {@link #force}, if one is open; call once its notifications have arrived. */
    public void done() {
        if ((forcingEpoch & 1) == 1) {
            forcingFrom = null;
            forcingEpoch++;
        }
    }

    /**
     * @return a number that is odd while a forcing is under way (from {@link #force} until {@link #done()}) and
     *     changes with each one: a reader that sees the same even number before and after reading the pools knows no
     *     forced allocation happened in between
     */
    public long forcingEpoch() {
        return forcingEpoch;
    }

    /** @return whether collection {@code id} of {@code bean} was caused by the forcing under way */
    public boolean isForced(String bean, long id) {
        Map<String, Long> from = forcingFrom;
        return from != null && id > from.getOrDefault(bean, Long.MAX_VALUE);
    }

    private Fill fillEden(long before, long collectByNanos) {
        long budget = 2 * layout.edenCapacity() + (64L << 20);
        for (long allocated = 0; allocated < budget; allocated += CHUNK) {
            if (past(collectByNanos)) {
                sink = null;
                return Fill.TOO_LATE;
            }
            sink = new byte[CHUNK];
            if (layout.collectionCount() != before) {
                sink = null;
                return Fill.COLLECTED;
            }
        }
        sink = null;
        LOG.log(System.Logger.Level.WARNING, "Blade: filling eden did not start a young collection; "
            + "collecting explicitly instead");
        return Fill.NO_COLLECTION;
    }

    private boolean explicit(long before) {
        if (!explicitGcDisabled) {
            System.gc();
            if (layout.collectionCount() != before) {
                return true;
            }
        }
        try {
            ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcRun",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return layout.collectionCount() != before;
        } catch (JMException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "Blade cannot force a collection: System.gc() is "
                + (explicitGcDisabled ? "disabled by -XX:+DisableExplicitGC" : "ignored")
                + " and the DiagnosticCommand MBean's gcRun failed (" + e + ")");
            return false;
        }
    }
}
