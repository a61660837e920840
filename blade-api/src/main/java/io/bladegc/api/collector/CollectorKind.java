package io.bladegc.api.collector;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The collectors HotSpot ships, recognised by the exact set of their {@code GarbageCollectorMXBean} names, with
 * the roles of their beans and pools. Nothing is guessed from parts of names: a set that matches no entry is
 * {@link #UNKNOWN}, which Blade reports and only observes.
 */
public enum CollectorKind {
    SERIAL("Serial", List.of("Copy", "MarkSweepCompact"), Set.of(), "Copy", "MarkSweepCompact",
        "Eden Space", "Survivor Space", "Tenured Gen", true),
    PARALLEL("Parallel", List.of("PS Scavenge", "PS MarkSweep"), Set.of(), "PS Scavenge", "PS MarkSweep",
        "PS Eden Space", "PS Survivor Space", "PS Old Gen", true),
    /** G1; JDK 20 and later add the "G1 Concurrent GC" bean, which reports the remark and cleanup pauses. */
    G1("G1", List.of("G1 Young Generation", "G1 Old Generation"), Set.of("G1 Concurrent GC"),
        "G1 Young Generation", "G1 Old Generation", "G1 Eden Space", "G1 Survivor Space", "G1 Old Gen", true),
    ZGC("ZGC", List.of("ZGC Cycles", "ZGC Pauses"), Set.of(), null, null, null, null, "ZHeap", false),
    ZGC_GENERATIONAL("generational ZGC",
        List.of("ZGC Minor Cycles", "ZGC Minor Pauses", "ZGC Major Cycles", "ZGC Major Pauses"), Set.of(),
        null, null, null, null, "ZGC Old Generation", false),
    SHENANDOAH("Shenandoah", List.of("Shenandoah Cycles", "Shenandoah Pauses"), Set.of(), null, null, null, null,
        "Shenandoah", false),
    EPSILON("Epsilon", List.of("Epsilon Heap"), Set.of(), null, null, null, null, "Epsilon Heap", false),
    UNKNOWN("unknown", List.of(), Set.of(), null, null, null, null, null, false);

    private final String displayName;
    private final List<String> beans;
    private final Set<String> optionalBeans;
    private final String youngBean;
    private final String oldBean;
    private final String edenPool;
    private final String survivorPool;
    private final String oldPool;
    private final boolean schedulable;

    CollectorKind(String displayName, List<String> beans, Set<String> optionalBeans, String youngBean,
                  String oldBean, String edenPool, String survivorPool, String oldPool, boolean schedulable) {
        this.displayName = displayName;
        this.beans = beans;
        this.optionalBeans = optionalBeans;
        this.youngBean = youngBean;
        this.oldBean = oldBean;
        this.edenPool = edenPool;
        this.survivorPool = survivorPool;
        this.oldPool = oldPool;
        this.schedulable = schedulable;
    }

    /**
     * @param beanNames the names of every {@code GarbageCollectorMXBean} of this JVM
     * @return the collector they belong to, or {@link #UNKNOWN}
     */
    public static CollectorKind of(Collection<String> beanNames) {
        for (CollectorKind k : values()) {
            if (k != UNKNOWN && beanNames.containsAll(k.beans)
                && beanNames.stream().allMatch(n -> k.beans.contains(n) || k.optionalBeans.contains(n))) {
                return k;
            }
        }
        return UNKNOWN;
    }

    /** @return the name users know it by */
    public String displayName() {
        return displayName;
    }

    /** @return whether Blade plans this collector's collections (stop-the-world generational collectors) */
    public boolean schedulable() {
        return schedulable;
    }

    /** @return whether a notification of this bean means stop-the-world pause time ("Cycles" beans do not) */
    public boolean isPauseBean(String bean) {
        return !bean.endsWith(" Cycles") || !beans.contains(bean);
    }

    /** @return whether a collection by this bean reclaims memory (counted as a collection) */
    public boolean isCollectionBean(String bean) {
        return switch (this) {
            case SERIAL, PARALLEL, G1 -> bean.equals(youngBean) || bean.equals(oldBean);
            case ZGC, SHENANDOAH -> bean.endsWith(" Cycles");
            case ZGC_GENERATIONAL -> bean.equals("ZGC Minor Cycles") || bean.equals("ZGC Major Cycles");
            default -> false;
        };
    }

    /** @return whether this bean collects the old generation (full or major collections) */
    public boolean isOldBean(String bean) {
        return bean.equals(oldBean) || bean.equals("ZGC Major Cycles") || bean.equals("ZGC Major Pauses");
    }

    /** @return the young collector's bean name, or {@code null} for non-generational or unknown collectors */
    public String youngBean() {
        return youngBean;
    }

    /** @return eden's pool name, or {@code null} */
    public String edenPool() {
        return edenPool;
    }

    /** @return the survivor pool's name, or {@code null} */
    public String survivorPool() {
        return survivorPool;
    }

    /** @return the old generation's (or the whole heap's) pool name, or {@code null} */
    public String oldPool() {
        return oldPool;
    }
}
