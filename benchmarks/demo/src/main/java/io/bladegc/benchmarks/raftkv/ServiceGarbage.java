package io.bladegc.benchmarks.raftkv;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a service does with memory besides its replicated state: a daemon thread allocates a steady number of MiB per
 * second in small arrays and keeps each for {@link #LIFETIME_SECONDS} s (sessions, caches, buffers), so that young
 * collections copy live data and some of it is promoted: the memory behaviour of the counter service a Ratis user ran
 * in issue 34 (24 MB/s kept 4 s, on 512 MB heaps). Every peer runs one, leader or follower alike.
 *
 * <p>Thread-safe: {@link #close} from any thread.
 */
public final class ServiceGarbage implements AutoCloseable {
    /** How long each piece is kept. */
    public static final int LIFETIME_SECONDS = 4;
    /** How often the thread allocates. */
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The size of each array. */
    private static final int PIECE_BYTES = 1024;

    private final Thread thread;
    private volatile boolean running = true;

    /** @param mibPerSecond what to allocate each second, more than 0 */
    private ServiceGarbage(int mibPerSecond) {
        int ticksKept = (int) (TimeUnit.SECONDS.toNanos(LIFETIME_SECONDS) / TICK_NANOS);
        long bytesPerTick = mibPerSecond * (1L << 20) * TICK_NANOS / TimeUnit.SECONDS.toNanos(1);
        int piecesPerTick = (int) Math.max(1, bytesPerTick / PIECE_BYTES);
        this.thread = new Thread(() -> run(new byte[ticksKept][][], piecesPerTick), "service-garbage");
        this.thread.setDaemon(true);
    }

    /**
     * @param mibPerSecond what to allocate each second; 0 for nothing
     * @return the running allocator, or {@code null} for 0
     */
    static ServiceGarbage start(int mibPerSecond) {
        if (mibPerSecond <= 0) {
            return null;
        }
        ServiceGarbage g = new ServiceGarbage(mibPerSecond);
        g.thread.start();
        return g;
    }

    private void run(byte[][][] kept, int piecesPerTick) {
        long next = System.nanoTime();
        for (long tick = 0; running; tick++) {
            byte[][] pieces = new byte[piecesPerTick][];
            for (int i = 0; i < piecesPerTick; i++) {
                pieces[i] = new byte[PIECE_BYTES];
            }
            kept[(int) (tick % kept.length)] = pieces; // the one it replaces, kept LIFETIME_SECONDS, dies
            next += TICK_NANOS;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
            } else {
                next = System.nanoTime(); // paused (a collection): no catching up in a burst
            }
        }
    }

    @Override
    public void close() {
        running = false;
    }
}
