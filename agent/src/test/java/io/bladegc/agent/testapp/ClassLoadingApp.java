package io.bladegc.agent.testapp;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.NotificationEmitter;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * A service that loads classes steadily while it allocates, as one that generates proxies or scripts does: it
 * allocates {@code -Dapp.kbPerMs} KiB (default 100) and defines two new proxy classes, each in a new class loader,
 * every millisecond, keeping them all, until it allocated what {@code -Dapp.millis} (default 6000) such milliseconds
 * allocate (a loaded machine takes longer, not fewer collections; at most a minute), so that Metaspace crosses its
 * threshold again and again. When Blade's node runs it attaches a gate through the node's JDK-level channel (the
 * platform MBean {@code io.bladegc:type=Node}), so the node plans collections, as with the servlet filter.
 *
 * <p>Prints, at the end: {@code gaps: <kib>,<kib>,...}: the KiB this application allocated between each two
 * young collections in a row whose cause was not Metaspace's threshold; {@code metaspace collections: <n>} (cause
 * {@code Metadata GC Threshold}); {@code classes: <n>}; and, with Blade, {@code blade stats: Forced=..,
 * Escaped=.., OtherCause=..}. It knows nothing of Blade's classes.
 */
public final class ClassLoadingApp {
    /** The longest run, however slowly a loaded machine lets it allocate. */
    private static final long MAX_NANOS = 60_000_000_000L;
    private static volatile Object sink;
    private static volatile long allocatedKiB;

    private ClassLoadingApp() {
    }

    public static void main(String[] args) throws Exception {
        List<Long> marks = new ArrayList<>();
        int[] metaspace = new int[1];
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((n, h) -> {
                if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                    return;
                }
                GarbageCollectionNotificationInfo info =
                    GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                synchronized (marks) {
                    if ("Metadata GC Threshold".equals(info.getGcCause())) {
                        metaspace[0]++;
                    } else if (info.getGcAction().contains("minor")) {
                        marks.add(allocatedKiB);
                    }
                }
            }, null, null);
        }
        boolean blade = attachGate();
        int kbPerMs = Integer.getInteger("app.kbPerMs", 100);
        long totalKiB = Long.getLong("app.millis", 6000) * kbPerMs;
        long end = System.nanoTime() + MAX_NANOS;
        List<Object> classes = new ArrayList<>();
        while (allocatedKiB < totalKiB && System.nanoTime() < end) {
            for (int i = 0; i < kbPerMs; i++) {
                sink = new byte[1024 - 16];
            }
            allocatedKiB += kbPerMs;
            for (int i = 0; i < 2; i++) {
                ClassLoader loader = new ClassLoader(ClassLoadingApp.class.getClassLoader()) { };
                classes.add(Proxy.newProxyInstance(loader, new Class<?>[] {Runnable.class}, (p, m, a) -> null));
            }
            Thread.sleep(1);
        }
        Thread.sleep(200); // the last notifications
        StringBuilder gaps = new StringBuilder();
        synchronized (marks) {
            for (int i = 1; i < marks.size(); i++) {
                gaps.append(i == 1 ? "" : ",").append(marks.get(i) - marks.get(i - 1));
            }
            System.out.println("gaps: " + gaps);
            System.out.println("metaspace collections: " + metaspace[0]);
        }
        System.out.println("classes: " + classes.size());
        if (blade) {
            System.out.println("blade stats: " + stats());
        }
    }

    private static boolean attachGate() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("io.bladegc:type=Node");
        if (!server.isRegistered(name)) {
            return false;
        }
        ((Runnable) ((Map<?, ?>) server.getAttribute(name, "Channel")).get("attachGate")).run();
        return true;
    }

    private static String stats() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("io.bladegc:type=Node");
        StringBuilder sb = new StringBuilder();
        for (String a : new String[] {"Collections", "Forced", "Escaped", "OtherCause"}) {
            sb.append(sb.length() == 0 ? "" : ", ").append(a).append('=').append(server.getAttribute(name, a));
        }
        return sb.toString();
    }
}
