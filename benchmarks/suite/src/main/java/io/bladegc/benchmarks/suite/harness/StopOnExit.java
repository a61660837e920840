package io.bladegc.benchmarks.suite.harness;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stops what a suite runs when its JVM exits early (SIGTERM, Ctrl-C, an uncaught error): a shutdown hook closes the
 * part {@link #hold held} at that moment (a cluster, a server), then stops, by pid, any child process of this JVM
 * still alive (one that a part was starting when the hook ran: SIGTERM, then SIGKILL after 10 s). Thread-safe.
 */
public final class StopOnExit {
    private static final long GRACE_SECONDS = 10;

    private final AtomicReference<AutoCloseable> held = new AtomicReference<>();

    private StopOnExit() {
    }

    /** @return a new instance whose shutdown hook is registered */
    public static StopOnExit install() {
        StopOnExit stop = new StopOnExit();
        Runtime.getRuntime().addShutdownHook(new Thread(stop::stopAll, "suite-stop"));
        return stop;
    }

    /**
     * @param part what runs now, replacing what was held before (which its owner closes itself)
     * @return {@code part}
     */
    public <T extends AutoCloseable> T hold(T part) {
        held.set(part);
        return part;
    }

    /** Forgets the held part (its owner closed it). */
    public void release() {
        held.set(null);
    }

    private void stopAll() {
        AutoCloseable part = held.getAndSet(null);
        if (part != null) {
            try {
                part.close();
            } catch (Exception e) {
                System.err.println("suite: cannot stop " + part + ": " + e);
            }
        }
        List<ProcessHandle> children = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
        children.forEach(ProcessHandle::destroy);
        for (ProcessHandle child : children) {
            try {
                child.onExit().get(GRACE_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                System.err.println("suite: child pid " + child.pid() + " ignored SIGTERM, killing it");
                child.destroyForcibly();
            }
        }
    }
}
