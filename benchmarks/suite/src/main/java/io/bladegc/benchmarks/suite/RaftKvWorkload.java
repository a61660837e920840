package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.raftkv.KvCommand;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What the replicated key-value store holds and what the writes replace, for {@value RaftKvScenario#NAME} and
 * {@value RaftKvScenario#HEAVY_NAME}. Both preload {@link #keys} small keys ({@value #SMALL_VALUE_BYTES}-byte values)
 * and read them (3 gets in 4 requests, uniform). In {@value RaftKvScenario#NAME} the puts rewrite those small values:
 * the live set stays about 15 % of a 1 GiB heap, so G1 never marks and its pauses are short young ones. In
 * {@value RaftKvScenario#HEAVY_NAME} the store also holds {@link #hotKeys} hot values of {@link #hotValueBytes} bytes
 * ({@code hot-0 ..}), preloaded, and every put replaces one of them (uniform): the live set is several times larger and
 * the replaced values die old, so G1 marks and runs mixed collections, as a store whose values churn does. Immutable.
 *
 * @param keys          small keys preloaded, each read by gets
 * @param hotKeys       hot values preloaded and replaced by every put; 0: puts rewrite small keys instead
 * @param hotValueBytes bytes of each hot value
 */
record RaftKvWorkload(int keys, int hotKeys, int hotValueBytes) {
    /** Bytes of every small value. */
    static final int SMALL_VALUE_BYTES = 100;
    /** Puts in every {@value #GETS_PER_PUT} + 1 requests. */
    static final int GETS_PER_PUT = 3;

    /** Validates the sizes. */
    RaftKvWorkload {
        if (keys <= 0 || hotKeys < 0 || (hotKeys > 0 && hotValueBytes <= 0)) {
            throw new IllegalArgumentException("keys must be positive, hot keys and their size not negative: " + keys
                + ", " + hotKeys + ", " + hotValueBytes);
        }
    }

    /**
     * @return the workload of {@code o}'s scenario: 500,000 small keys (50,000 quick); for
     *     {@value RaftKvScenario#HEAVY_NAME} also 3,500 hot values of 64 KiB (350 quick)
     */
    static RaftKvWorkload of(SuiteOptions o) {
        int keys = o.quick() ? 50_000 : 500_000;
        return RaftKvScenario.HEAVY_NAME.equals(o.scenario())
            ? new RaftKvWorkload(keys, o.quick() ? 350 : 3_500, 64 * 1024) : new RaftKvWorkload(keys, 0, 0);
    }

    /** @return the next request: a get of a small key, or a put as the workload writes */
    KvCommand next(SplittableRandom random, String smallValue, String hotValue) {
        if (random.nextInt(GETS_PER_PUT + 1) != 0) {
            return new KvCommand.Get(KvCommand.Preload.keyOf(random.nextInt(keys)));
        }
        return hotKeys == 0 ? new KvCommand.Put(KvCommand.Preload.keyOf(random.nextInt(keys)), smallValue)
            : new KvCommand.Put(hotKey(random.nextInt(hotKeys)), hotValue);
    }

    /** @return the key of hot value {@code i} */
    static String hotKey(int i) {
        return "hot-" + i;
    }

    /** @return a value of {@code bytes} bytes */
    static String value(int bytes) {
        return "x".repeat(bytes);
    }

    /** @return how the table's header and the report's footer name it */
    String describe() {
        return hotKeys == 0
            ? String.format(Locale.ROOT, "%,d keys of %d-byte values, puts rewrite them", keys, SMALL_VALUE_BYTES)
            : String.format(Locale.ROOT, "%,d keys of %d-byte values, read; %,d hot values of %,d bytes, every put"
                + " replaces one", keys, SMALL_VALUE_BYTES, hotKeys, hotValueBytes);
    }
}
