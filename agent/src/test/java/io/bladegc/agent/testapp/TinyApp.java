package io.bladegc.agent.testapp;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Map;
import java.util.function.Supplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The application the agent integration tests start in a child JVM: prints {@code app ran}, then what the JDK-level
 * Blade channel (the platform MBean {@code io.bladegc:type=Node}) says: {@code blade node: <summary>}, or
 * {@code blade node: none} when no node runs. With {@code -Dtinyapp.allocate=true} it first allocates garbage for
 * two seconds ({@code -Dtinyapp.allocateMillis=...} to change), 64 KiB every 200 us ({@code -Dtinyapp.pauseMicros=...}
 * to change), as a busy service would, and then also prints
 * {@code blade stats: Mode=..., Collections=..., Forced=...} from the same MBean. With
 * {@code -Dtinyapp.coordination=true} it also prints {@code blade coordination: Grants=..., ...} from the MBean
 * {@code io.bladegc:type=Coordination}. With {@code -Dtinyapp.heap=true} it ends with
 * {@code heap after full collection: <bytes>}, the least the heap's pools held right after each of two
 * {@code System.gc()} calls 1.2 s apart: what Blade keeps, not what a call or collection under way holds for a moment. It knows nothing of Blade's
 * classes, like any application.
 */
public final class TinyApp {
    private TinyApp() {
    }

    private static volatile Object sink;

    public static void main(String[] args) throws InterruptedException {
        if (Boolean.getBoolean("tinyapp.allocate")) {
            long end = System.nanoTime() + Long.getLong("tinyapp.allocateMillis", 2000) * 1_000_000L;
            while (System.nanoTime() < end) {
                for (int i = 0; i < 64; i++) {
                    sink = new byte[1024];
                }
                long pause = Long.getLong("tinyapp.pauseMicros", 200) * 1_000;
                Thread.sleep(pause / 1_000_000, (int) (pause % 1_000_000));
            }
        }
        System.out.println("app ran");
        System.out.println("blade node: " + nodeSummary());
        if (Boolean.getBoolean("tinyapp.allocate")) {
            System.out.println("blade stats: " + nodeStats());
        }
        if (Boolean.getBoolean("tinyapp.coordination")) {
            System.out.println("blade coordination: " + coordinationStats());
        }
        if (Boolean.getBoolean("tinyapp.heap")) {
            sink = null;
            long first = heapAfterFullCollection();
            Thread.sleep(1_200); // a call or a collection of Blade's under way ends meanwhile (a second at most here)
            long heap = Math.min(first, heapAfterFullCollection());
            System.out.println("heap after full collection: " + heap);
            if (heap > Long.getLong("tinyapp.histogramAbove", Long.MAX_VALUE)) {
                System.out.println(histogram());
            }
            System.out.println("heap pools after the last collection: " + poolsAfterCollection() + "; classes loaded "
                + ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount());
        }
    }

    /**
     * @return what the heap's pools held right after a {@code System.gc()}: not what other threads allocated after it
     *     (a TLAB), though a collection of Blade's right after it shows in the young pools; the caller takes the
     *     least of two such readings, what survives both
     */
    private static long heapAfterFullCollection() {
        System.gc();
        long used = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                used += pool.getCollectionUsage().getUsed();
            }
        }
        return used;
    }

    /** @return each heap pool's use after its last collection, and the collections each collector ran */
    private static String poolsAfterCollection() {
        StringBuilder b = new StringBuilder();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                b.append(pool.getName()).append('=').append(pool.getCollectionUsage().getUsed()).append(", ");
            }
        }
        ManagementFactory.getGarbageCollectorMXBeans().forEach(g ->
            b.append(g.getName()).append(" x").append(g.getCollectionCount()).append(", "));
        return b.substring(0, b.length() - 2);
    }

    /** @return the heap's live objects by class, the first lines of {@code jcmd GC.class_histogram} */
    private static String histogram() {
        try {
            String h = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return String.join("\n", h.lines().limit(25).toList());
        } catch (Exception e) {
            return "no histogram: " + e;
        }
    }

    private static String coordinationStats() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.bladegc:type=Coordination");
            StringBuilder sb = new StringBuilder();
            for (String a : new String[] {"CoordinatorUp", "Grants", "QueuedWaits", "FailOpens", "Cancels",
                "Fenced", "StaleReleases", "Rejoins", "Failovers"}) {
                sb.append(sb.length() == 0 ? "" : ", ").append(a).append('=').append(server.getAttribute(name, a));
            }
            return sb.toString();
        } catch (Exception | LinkageError e) {
            return "unreadable (" + e + ")";
        }
    }

    private static String nodeStats() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.bladegc:type=Node");
            return "Mode=" + server.getAttribute(name, "Mode") + ", Collections="
                + server.getAttribute(name, "Collections") + ", Forced=" + server.getAttribute(name, "Forced");
        } catch (Exception | LinkageError e) {
            return "unreadable (" + e + ")";
        }
    }

    private static String nodeSummary() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.bladegc:type=Node");
            if (!server.isRegistered(name)) {
                return "none";
            }
            Map<?, ?> channel = (Map<?, ?>) server.getAttribute(name, "Channel");
            return String.valueOf(((Supplier<?>) channel.get("summary")).get());
        } catch (Exception | LinkageError e) {
            return "unreadable (" + e + ")";
        }
    }
}
