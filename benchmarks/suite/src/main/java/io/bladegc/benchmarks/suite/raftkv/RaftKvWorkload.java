package io.bladegc.benchmarks.suite.raftkv;

import io.bladegc.benchmarks.raftkv.KvCommand;
import io.bladegc.benchmarks.raftkv.ServiceGarbage;
import io.bladegc.benchmarks.suite.SuiteOptions;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What the replicated key-value store holds and what its writes replace, for {@value RaftKvScenario#NAME},
 * {@value RaftKvScenario#HEAVY_NAME} and {@value RaftKvScenario#COUNTER_NAME}. All preload {@link #keys} keys of {@value #VALUE_BYTES}-byte values (one
 * {@code PRELOAD} command) and read them (3 gets in 4 requests, a key drawn uniformly). In {@value RaftKvScenario#NAME}
 * each put rewrites one key: the live set stays about 15 % of a 1 GiB heap, and the values it replaces are few, so G1
 * never marks and its pauses are short young ones. In {@value RaftKvScenario#HEAVY_NAME} the store holds three times
 * the keys (a live set near 40 % of the heap, millions of small objects) and each put rewrites {@link #batch}
 * consecutive keys in one log entry (a bulk update, {@link KvCommand.Preload} from a random key): the replaced values
 * die old by the thousand, so G1 marks and runs mixed collections, and a collector's marking and copying cost follows
 * the number of objects. (Hot values of 64 KiB that every put replaced, tried first, left G1 at 10-18 ms pauses and a
 * p99.99 of 38 ms: a few large strings are nearly free to mark and copy.) {@value RaftKvScenario#COUNTER_NAME} is the
 * service a Ratis user ran in issue 34: a small store (a counter's worth of state), and every peer allocating
 * {@value #COUNTER_GARBAGE_MIB} MiB/s besides it ({@link ServiceGarbage}), on 512 MiB heaps.
 * Immutable.
 *
 * @param keys    keys preloaded, each read by gets
 * @param batch   keys each put rewrites, consecutive, in one log entry; 1: a plain put of one key
 * @param garbage MiB/s every peer allocates besides the store (KvServer's {@code --garbage}), 0 for none
 */
public record RaftKvWorkload(int keys, int batch, int garbage) {
    /** What every peer of {@value RaftKvScenario#COUNTER_NAME} allocates besides the store, MiB/s. */
    static final int COUNTER_GARBAGE_MIB = 24;
    /** Bytes of every value. */
    static final int VALUE_BYTES = 100;
    /** Puts in every {@value #GETS_PER_PUT} + 1 requests. */
    static final int GETS_PER_PUT = 3;

    /** Validates the sizes. */
    public RaftKvWorkload {
        if (keys <= 0 || batch <= 0 || batch > keys || garbage < 0) {
            throw new IllegalArgumentException("keys and the batch must be positive, the batch at most the keys, the"
                + " garbage not negative: " + keys + ", " + batch + ", " + garbage);
        }
    }

    /**
     * @return the workload of {@code o}'s scenario: 500,000 keys (50,000 quick), puts of one key; for
     *     {@value RaftKvScenario#HEAVY_NAME} 1,500,000 keys (150,000 quick), puts of 1,024 keys; for
     *     {@value RaftKvScenario#COUNTER_NAME} 1,000 keys, puts of one, and {@value #COUNTER_GARBAGE_MIB} MiB/s
     */
    static RaftKvWorkload of(SuiteOptions o) {
        return switch (o.scenario()) {
            case RaftKvScenario.HEAVY_NAME -> heavy(o.quick());
            case RaftKvScenario.COUNTER_NAME -> new RaftKvWorkload(1_000, 1, COUNTER_GARBAGE_MIB);
            default -> new RaftKvWorkload(o.quick() ? 50_000 : 500_000, 1, 0);
        };
    }

    /** @return {@value RaftKvScenario#HEAVY_NAME}'s workload: 1,500,000 keys (150,000 quick), puts of 1,024 keys */
    public static RaftKvWorkload heavy(boolean quick) {
        return new RaftKvWorkload(quick ? 150_000 : 1_500_000, 1_024, 0);
    }

    /** @return the next request: a get of a random key, or a put of one key or of a batch from a random one */
    KvCommand next(SplittableRandom random, String value) {
        if (random.nextInt(GETS_PER_PUT + 1) != 0) {
            return new KvCommand.Get(KvCommand.Preload.keyOf(random.nextInt(keys)));
        }
        return batch == 1 ? new KvCommand.Put(KvCommand.Preload.keyOf(random.nextInt(keys)), value)
            : new KvCommand.Preload(random.nextInt(keys - batch + 1), batch, VALUE_BYTES);
    }

    /** @return how the table's header and the report's footer name it */
    public String describe() {
        String store = batch == 1 ? String.format(Locale.ROOT, "%,d keys of %d-byte values, a put writes one", keys,
            VALUE_BYTES) : String.format(Locale.ROOT, "%,d keys of %d-byte values, a put rewrites %,d consecutive"
                + " ones in one log entry", keys, VALUE_BYTES, batch);
        return garbage == 0 ? store : String.format(Locale.ROOT, "%s; every peer allocates %d MiB/s besides, each"
            + " piece kept %d s", store, garbage, ServiceGarbage.LIFETIME_SECONDS);
    }
}
