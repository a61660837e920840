package io.bladegc.benchmarks.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The child processes a cluster started, in order, to be stopped in the reverse order: {@link #close()} stops each
 * by pid and carries on past one that fails to stop; a part started after {@link #close()} (a shutdown hook that ran
 * while the cluster was starting) is stopped at once. Thread-safe; {@link #close()} is idempotent.
 */
public final class StartedParts implements AutoCloseable {
    private final List<AutoCloseable> started = new ArrayList<>();
    private boolean closed;

    /**
     * Records a started part, or stops it at once when {@link #close()} came first.
     *
     * @param part what was just started
     * @return {@code part}
     * @throws IllegalStateException when the parts were closed already (after stopping {@code part})
     */
    public <T extends AutoCloseable> T track(T part) throws Exception {
        synchronized (this) {
            if (!closed) {
                started.add(part);
                return part;
            }
        }
        part.close();
        throw new IllegalStateException("the cluster was closed while it started");
    }

    /** Stops every part tracked, by pid, in reverse order; carries on past a part that fails to stop. */
    @Override
    public synchronized void close() {
        closed = true;
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                System.err.println("interrupted while stopping a child; carrying on: " + e);
            } catch (Exception e) {
                System.err.println("cannot stop a child: " + e);
            }
        }
        started.clear();
    }
}
