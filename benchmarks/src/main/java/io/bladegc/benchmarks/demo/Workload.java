package io.bladegc.benchmarks.demo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo service's memory behaviour: a live set of byte[] chunks built at start, some garbage per request, and
 * some live-set churn per request (chunks replaced by new ones, so the old generation keeps filling with dead chunks
 * and full collections happen).
 *
 * <p>Thread-safe.
 */
final class Workload {
    /** Size of one live-set chunk. Small enough never to be a humongous object in G1. */
    static final int CHUNK_BYTES = 8 * 1024;
    /** Size of one piece of per-request garbage. */
    static final int PIECE_BYTES = 1024;

    private final Map<Integer, byte[]> live = new ConcurrentHashMap<>();
    private final int chunks;
    private final int garbageBytes;
    private final int churnBytes;
    private final AtomicLong requests = new AtomicLong();

    /**
     * Builds the live set.
     *
     * @param liveMb    size of the live set in MiB
     * @param garbageKb garbage allocated per request, in KiB
     * @param churnKb   live-set bytes replaced per request, in KiB
     */
    Workload(int liveMb, int garbageKb, int churnKb) {
        this.chunks = (int) ((long) liveMb * 1024 * 1024 / CHUNK_BYTES);
        this.garbageBytes = garbageKb * 1024;
        this.churnBytes = churnKb * 1024;
        for (int i = 0; i < chunks; i++) {
            live.put(i, newChunk(i));
        }
    }

    /**
     * Does one request's work.
     *
     * @return a checksum over the garbage, to be written into the response (so the JIT cannot drop the allocations)
     */
    long handle() {
        long n = requests.incrementAndGet();
        long sum = n;
        for (int left = garbageBytes; left > 0; left -= PIECE_BYTES) {
            byte[] piece = new byte[Math.min(PIECE_BYTES, left)];
            for (int i = 0; i < piece.length; i += 64) {
                piece[i] = (byte) (sum + i);
            }
            sum = sum * 31 + piece[piece.length / 2] + piece[piece.length - 1];
        }
        if (churnBytes > 0 && chunks > 0) {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            // Whole chunks, with the fraction rounded at random so the average is exact.
            int replace = churnBytes / CHUNK_BYTES + (rnd.nextInt(CHUNK_BYTES) < churnBytes % CHUNK_BYTES ? 1 : 0);
            for (int r = 0; r < replace; r++) {
                int index = rnd.nextInt(chunks);
                byte[] chunk = newChunk(n);
                live.put(index, chunk);
                sum += chunk[0];
            }
        }
        return sum;
    }

    /** @return requests handled so far */
    long requests() {
        return requests.get();
    }

    /** @return the live set's size in bytes, counting the chunk arrays only */
    long liveBytes() {
        return (long) chunks * CHUNK_BYTES;
    }

    private static byte[] newChunk(long seed) {
        byte[] chunk = new byte[CHUNK_BYTES];
        for (int i = 0; i < CHUNK_BYTES; i += 512) {
            chunk[i] = (byte) (seed + i);
        }
        return chunk;
    }
}
