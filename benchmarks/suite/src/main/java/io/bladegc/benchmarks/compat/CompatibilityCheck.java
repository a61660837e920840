package io.bladegc.benchmarks.compat;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.Gate;
import io.bladegc.api.collector.CollectorKind;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageProblems;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import javax.management.MBeanServer;
import javax.management.NotificationEmitter;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * One cell of the JDK x collector compatibility table: runs a Blade node in this JVM under a small synthetic request
 * load and checks, with a GC notification listener of its own (independent of Blade), how many of the JVM's
 * collections fell inside the node's quiet windows (gate closed, nothing in flight).
 *
 * <p>Starts the node with {@link BladeOptions#defaults()} and {@link BladeNode#attachGate()}, builds a 60 MB live set,
 * then for {@code seconds} (first argument, default 8) runs {@value #THREADS} request threads paced at
 * {@value #RATE} requests/s in total. Each request passes {@link Gate#tryEnter()}; when admitted it allocates
 * {@value #GARBAGE_BYTES} bytes of short-lived small arrays, replaces one 4 KiB chunk of the live set and exits the
 * gate; when refused it counts a shed and sleeps 1 ms.
 *
 * <p>Prints one line of {@code key=value} pairs separated by single spaces (spaces inside values are written as
 * {@code _}): {@code java.version collector mode collections quiet forced escaped refused shed admitted requests
 * drainTimeouts windows beans causes}, where {@code collections} counts this listener's notifications from beans
 * whose names do not end in {@code " Cycles"} once the request threads started, {@code quiet} how many of those lie
 * inside a quiet window, {@code otherPauses} and {@code otherPausesQuiet} the pauses of a bean that reports no collection
 * (G1's remark and cleanup, in bean "G1 Concurrent GC" from JDK 20 on; JDK 17 reports them nowhere) and how many of
 * them lay inside a quiet window: not counted as collections (Blade plans collections, and these come when G1's
 * concurrent marking ends), and {@code beforeLoad} the collections while the live set was built, before any request:
 * with no request to protect they are neither counted nor judged (G1's small initial eden runs several there, at
 * more than 1 GB/s of allocation, before Blade's watcher has measured a rate; Blade's own counters include them).
 * Then the node's summary on a second line. Exits 0.
 */
public final class CompatibilityCheck {
    private static final int THREADS = 4;
    private static final int RATE = 2500;
    private static final int GARBAGE_BYTES = 64 * 1024;
    private static final int GARBAGE_CHUNK = 1024;
    private static final int LIVE_CHUNK = 4 * 1024;
    private static final int LIVE_CHUNKS = 60 * 1024 * 1024 / LIVE_CHUNK;
    private static final String NODE_MBEAN = "io.bladegc:type=Node";

    /** Where garbage goes so the JIT cannot prove it dead. */
    @SuppressWarnings("unused")
    private static volatile Object sink;

    /** One GC notification as this check's own listener saw it. */
    private record Seen(String bean, long id, String action, String cause) {
    }

    private CompatibilityCheck() {
    }

    /** The command line: the seconds of load. */
    @Command(name = "CompatibilityCheck", description = "One cell of the JDK x collector compatibility table: a"
        + " Blade node under a small request load; prints one line of key=value pairs, then the node's summary.")
    static final class Seconds implements ToolCommand<Double> {
        // text, converted below: a malformed positional argument would also count as unmatched to picocli
        @Parameters(paramLabel = "SECONDS", arity = "0..1", defaultValue = "8",
            description = "how long the request threads run (default ${DEFAULT-VALUE})")
        String seconds;

        @Override
        public Double options() {
            double value;
            try {
                value = Double.parseDouble(seconds);
            } catch (NumberFormatException e) {
                value = Double.NaN;
            }
            UsageProblems problems = new UsageProblems();
            problems.check(value > 0, "SECONDS", seconds, "a positive number of seconds");
            problems.throwIfAny();
            return value;
        }
    }

    public static void main(String[] args) throws Exception {
        double seconds = ToolCommandLine.parseOrExit(new Seconds(), args);
        ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener((n, hb) -> {
                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
                        seen.add(new Seen(info.getGcName(), info.getGcInfo().getId(), info.getGcAction(),
                            info.getGcCause()));
                    }
                }, null, null);
            }
        }

        BladeNode node = Blade.startNode(BladeOptions.defaults());
        node.attachGate();
        Gate gate = node.gate();

        byte[][] live = new byte[LIVE_CHUNKS][];
        for (int i = 0; i < live.length; i++) {
            live[i] = new byte[LIVE_CHUNK];
        }
        LongAdder admitted = new LongAdder();
        LongAdder shed = new LongAdder();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long periodNanos = 1_000_000_000L * THREADS / RATE;
        Thread[] workers = new Thread[THREADS];
        // each bean's count as the load starts: notifications arrive later, on their own thread, so a collection is
        // placed by its id, not by when its notification came
        Map<String, Long> loadFrom = new HashMap<>();
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            loadFrom.put(bean.getName(), bean.getCollectionCount());
        }
        for (int t = 0; t < THREADS; t++) {
            workers[t] = new Thread(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                long next = System.nanoTime();
                while (next < end) {
                    if (gate.tryEnter()) {
                        try {
                            for (int b = 0; b < GARBAGE_BYTES; b += GARBAGE_CHUNK) {
                                sink = new byte[GARBAGE_CHUNK];
                            }
                            live[rnd.nextInt(live.length)] = new byte[LIVE_CHUNK];
                        } finally {
                            gate.exit();
                        }
                        admitted.increment();
                    } else {
                        shed.increment();
                        LockSupport.parkNanos(1_000_000);
                    }
                    next += periodNanos;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    } else if (wait < -100_000_000) {
                        next = System.nanoTime(); // far behind (a long pause): do not burst to catch up
                    }
                }
            }, "compat-request-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        Thread.sleep(300); // let the last notifications arrive
        sink = null;

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName(NODE_MBEAN);
        String[] beans = (String[]) server.getAttribute(name, "GcBeans");
        long[] windows = (long[]) server.getAttribute(name, "QuietWindows");
        int n = beans.length;
        List<String> beanList = List.of(beans);
        long collections = 0;
        long beforeLoad = 0;
        long quiet = 0;
        long otherPauses = 0;
        long otherPausesQuiet = 0;
        CollectorKind kind = CollectorKind.of(beanList);
        Map<String, Integer> perBean = new TreeMap<>();
        Map<String, Integer> causes = new TreeMap<>();
        for (Seen s : seen) {
            if (s.bean().endsWith(" Cycles")) {
                continue;
            }
            if (s.id() <= loadFrom.getOrDefault(s.bean(), 0L)) {
                beforeLoad++;
                continue;
            }
            int b = beanList.indexOf(s.bean());
            boolean inQuiet = b >= 0 && n > 0 && inside(windows, n, b, s.id());
            if (kind.schedulable() && !kind.isCollectionBean(s.bean())) {
                otherPauses++; // G1's remark and cleanup (bean "G1 Concurrent GC", JDK 20 on): pauses, not collections
                otherPausesQuiet += inQuiet ? 1 : 0;
                continue;
            }
            collections++;
            perBean.merge(s.bean(), 1, Integer::sum);
            causes.merge(s.cause(), 1, Integer::sum);
            if (inQuiet) {
                quiet++;
            }
        }
        StringBuilder line = new StringBuilder();
        put(line, "java.version", System.getProperty("java.version"));
        put(line, "collector", server.getAttribute(name, "Collector"));
        put(line, "mode", server.getAttribute(name, "Mode"));
        put(line, "collections", collections);
        put(line, "quiet", quiet);
        put(line, "beforeLoad", beforeLoad);
        put(line, "otherPauses", otherPauses);
        put(line, "otherPausesQuiet", otherPausesQuiet);
        for (String a : new String[] {"Forced", "Escaped", "Refused"}) {
            put(line, a.toLowerCase(), server.getAttribute(name, a));
        }
        put(line, "shed", shed.sum());
        put(line, "admitted", admitted.sum());
        put(line, "requests", server.getAttribute(name, "Requests"));
        put(line, "drainTimeouts", server.getAttribute(name, "DrainTimeouts"));
        put(line, "windows", n == 0 ? 0 : windows.length / (2 * n));
        put(line, "beans", String.join(",", beans));
        put(line, "perBean", join(perBean));
        put(line, "causes", join(causes));
        System.out.println(line.toString().trim());
        System.out.println(node.summary());
        System.out.flush();
        System.exit(0);
    }

    /** @return whether collection {@code id} of bean index {@code b} lies inside any of the flattened windows */
    private static boolean inside(long[] windows, int n, int b, long id) {
        for (int w = 0; w + 2 * n <= windows.length; w += 2 * n) {
            if (windows[w + b] < id && id <= windows[w + n + b]) {
                return true;
            }
        }
        return false;
    }

    private static String join(Map<String, Integer> counts) {
        StringBuilder sb = new StringBuilder();
        counts.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ",").append(k).append(':').append(v));
        return sb.length() == 0 ? "-" : sb.toString();
    }

    private static void put(StringBuilder line, String key, Object value) {
        line.append(key).append('=').append(String.valueOf(value).replace(' ', '_')).append(' ');
    }
}
