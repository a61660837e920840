package io.bladegc.benchmarks.demo;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo service's memory behaviour: a live set of chunks built at start, some garbage per request, and some
 * live-set churn per request (chunks replaced by new ones, so the old generation keeps filling with dead chunks and
 * full collections happen). A chunk is {@link #CHUNK_BYTES} of byte arrays: one array, or many small ones (the
 * object size), which is what a collector's marking and copying cost follows (a live set of a few large arrays is
 * nearly free to trace; real services hold maps of small objects).
 *
 * <p>Thread-safe.
 */
public final class Workload {
    /** Size of one live-set chunk. Small enough never to be a humongous object in G1. */
    public static final int CHUNK_BYTES = 8 * 1024;
    /** Size of one piece of per-request garbage. */
    static final int PIECE_BYTES = 1024;

    private final Map<Integer, Object> live = new ConcurrentHashMap<>();
    private final int chunks;
    private final int garbageBytes;
    private final int churnBytes;
    private final int objectBytes;
    private final AtomicLong requests = new AtomicLong();

    /**
     * Builds the live set.
     *
     * @param liveMb    size of the live set in MiB
     * @param garbageKb garbage allocated per request, in KiB
     * @param churnKb     live-set bytes replaced per request, in KiB
     * @param objectBytes size of the byte arrays a chunk is made of, 16 to {@link #CHUNK_BYTES} (one array)
     */
    public Workload(int liveMb, int garbageKb, int churnKb, int objectBytes) {
        if (objectBytes < 16 || objectBytes > CHUNK_BYTES) {
            throw new IllegalArgumentException("object size must be 16 to " + CHUNK_BYTES + " bytes: " + objectBytes);
        }
        this.chunks = (int) ((long) liveMb * 1024 * 1024 / CHUNK_BYTES);
        this.garbageBytes = garbageKb * 1024;
        this.churnBytes = churnKb * 1024;
        this.objectBytes = objectBytes;
        for (int i = 0; i < chunks; i++) {
            live.put(i, newChunk(i));
        }
    }

    /**
     * Does one request's work.
     *
     * @return a checksum over the garbage, to be written into the response (so the JIT cannot drop the allocations)
     */
    public long handle() {
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
                live.put(index, newChunk(n));
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

    private Object newChunk(long seed) {
        if (objectBytes == CHUNK_BYTES) {
            return filled(CHUNK_BYTES, seed);
        }
        Object[] chunk = new Object[CHUNK_BYTES / objectBytes];
        for (int i = 0; i < chunk.length; i++) {
            chunk[i] = filled(objectBytes, seed + i);
        }
        return chunk;
    }

    private static byte[] filled(int bytes, long seed) {
        byte[] array = new byte[bytes];
        for (int i = 0; i < bytes; i += 512) {
            array[i] = (byte) (seed + i);
        }
        return array;
    }
}
