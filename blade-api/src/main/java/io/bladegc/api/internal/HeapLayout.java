package io.bladegc.api.internal;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.bladegc.api.collector.CollectorKind;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.stream.Collectors;

/**
 * This JVM's collector and the memory pools and collector beans Blade reads. Thread-safe (immutable; the MXBeans
 * it holds are thread-safe).
 */
final class HeapLayout {
    private final CollectorKind kind;
    private final List<GarbageCollectorMXBean> gcBeans;
    private final List<GarbageCollectorMXBean> collectionBeans;
    private final MemoryPoolMXBean eden;
    private final MemoryPoolMXBean survivor;
    private final MemoryPoolMXBean old;
    private final long maxHeap;
    private final long edenGrain;
    /** G1's GCLockerEdenExpansionPercent; 0 where the JVM has no such flag (JDK 25 has none, JDK 17 has it). */
    private final long lockerExpansionPercent;

    private HeapLayout(CollectorKind kind, List<GarbageCollectorMXBean> gcBeans, List<MemoryPoolMXBean> pools) {
        this.kind = kind;
        this.gcBeans = List.copyOf(gcBeans);
        this.collectionBeans = gcBeans.stream().filter(b -> kind.isCollectionBean(b.getName())).toList();
        this.eden = pool(pools, kind.edenPool());
        this.survivor = pool(pools, kind.survivorPool());
        this.old = pool(pools, kind.oldPool());
        this.maxHeap = Runtime.getRuntime().maxMemory();
        this.edenGrain = kind == CollectorKind.G1 ? vmSize("G1HeapRegionSize") : 0;
        this.lockerExpansionPercent = kind == CollectorKind.G1 ? vmSize("GCLockerEdenExpansionPercent") : 0;
    }

    /** @return a numeric HotSpot flag's value, 0 when it cannot be read */
    static long vmSize(String name) {
        try {
            HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return Long.parseLong(hs.getVMOption(name).getValue());
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /**
     * @return how much eden may hold beyond what its pool reports, in bytes: on G1 one region (the pool counts a
     *     region once it is retired, not the one being allocated into; G1 collects when it would take a region past
     *     its target, so the last region fills unseen), else 0 (Serial's and Parallel's eden reports its top)
     */
    public long edenGrain() {
        return edenGrain;
    }

    /** @return the layout of the running JVM */
    public static HeapLayout current() {
        List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
        CollectorKind kind = CollectorKind.of(beans.stream().map(GarbageCollectorMXBean::getName).toList());
        return new HeapLayout(kind, beans, ManagementFactory.getMemoryPoolMXBeans());
    }

    private static MemoryPoolMXBean pool(List<MemoryPoolMXBean> pools, String name) {
        return name == null ? null : pools.stream().filter(p -> p.getName().equals(name)).findFirst().orElse(null);
    }

    public CollectorKind kind() {
        return kind;
    }

    /** @return whether Blade can plan collections here: a known stop-the-world generational collector */
    public boolean schedulable() {
        return kind.schedulable() && eden != null && old != null;
    }

    public List<GarbageCollectorMXBean> gcBeans() {
        return gcBeans;
    }

    /** @return how many memory-reclaiming collections the JVM has run; read straight from the MXBeans */
    public long collectionCount() {
        long n = 0;
        for (GarbageCollectorMXBean b : collectionBeans) {
            n += Math.max(0, b.getCollectionCount());
        }
        return n;
    }

    public MemoryUsage edenUsage() {
        return eden.getUsage();
    }

    /** @return survivor capacity in bytes, 0 when unknown */
    public long survivorCommitted() {
        return survivor == null ? 0 : survivor.getUsage().getCommitted();
    }

    public MemoryUsage oldUsage() {
        return old.getUsage();
    }

    /** @return the most the heap may grow to */
    public long maxHeap() {
        return maxHeap;
    }

    /** @return the bean names, as the start-up line shows them */
    public String beanNames() {
        return gcBeans.stream().map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
    }

    /** @return each collector bean's collection count, in the order of {@link #gcBeans()} */
    public long[] beanCounts() {
        long[] counts = new long[gcBeans.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = gcBeans.get(i).getCollectionCount();
        }
        return counts;
    }

    /**
     * @return where the JVM starts its next young collection, as eden's occupancy in bytes, 0 when unknown: eden's
     *     committed size; on G1 its young-generation target less the survivors ({@link #g1EdenTarget}), which the
     *     committed size overstates on JDKs whose G1 keeps room for a GC locker. Read from the eden and survivor pools.
     */
    public long edenCapacity() {
        if (eden == null) {
            return 0;
        }
        long committed = eden.getUsage().getCommitted();
        if (kind != CollectorKind.G1 || edenGrain <= 0 || survivor == null) {
            return committed;
        }
        return g1EdenTarget(committed, survivor.getUsage().getCommitted(), edenGrain, lockerExpansionPercent);
    }

    /**
     * G1's pools report eden's committed size as the young generation's maximum length less the survivor regions,
     * and where the JVM has {@code GCLockerEdenExpansionPercent} (JDK 17 does, JDK 25 not) that maximum is the target
     * length plus that percentage of it, rounded up, kept for threads in JNI critical sections; G1 starts a young
     * collection when eden reaches the target.
     * (Measured on JDK 17: eden held exactly this at the start of 2,870 of 2,947 evacuation pauses, one region less
     * at the other 77; on JDK 25, without the flag, the committed size itself at 1,968 of 1,970.)
     *
     * @param edenCommitted     eden pool's committed bytes
     * @param survivorCommitted survivor pool's committed bytes (on G1 whole regions)
     * @param region            the region size in bytes, more than 0
     * @param expansionPercent  GCLockerEdenExpansionPercent, 0 when the JVM has none
     * @return eden's size at the young-generation target, in bytes
     */
    static long g1EdenTarget(long edenCommitted, long survivorCommitted, long region, long expansionPercent) {
        long survivors = survivorCommitted / region;
        long max = edenCommitted / region + survivors;
        long target = max * 100 / (100 + expansionPercent); // the rounding up may still take it one past max
        while (target > 0 && target + ceilPercent(target, expansionPercent) > max) {
            target--;
        }
        return Math.max(0, target - survivors) * region;
    }

    private static long ceilPercent(long n, long percent) {
        return (n * percent + 99) / 100;
    }

    /** @return room left in the old generation in bytes: the most it may grow to, minus what it holds */
    public long oldFree() {
        MemoryUsage u = old.getUsage();
        long max = u.getMax() > 0 ? u.getMax() : maxHeap;
        if (kind == CollectorKind.G1) {
            // G1's regions are shared by every generation: what eden and survivors hold is not free for old.
            return max - u.getUsed() - eden.getUsage().getUsed() - survivor.getUsage().getUsed();
        }
        return max - u.getUsed();
    }
}
