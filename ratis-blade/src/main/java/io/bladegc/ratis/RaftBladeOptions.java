package io.bladegc.ratis;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of Blade for a Ratis peer. Immutable.
 *
 * @param lease           a grant's lifetime: a peer that neither releases nor renews loses its slot then (default
 *                        10 s)
 * @param memberTimeout   a peer silent this long counts as down, against the majority (default 3 s); peers heartbeat
 *                        every third of it, at least every 250 ms (each beat says when the peer's JVM collects next)
 * @param transferTimeout how long a leader waits for its leadership to move before it gives up and does not collect
 *                        (default 3 s)
 * @param callTimeout     how long one call to the slot group may take (default 2 s)
 * @param handOff         whether a leader may collect without handing off when its pauses are measured to be short
 *                        ({@link HandOff#MEASURED}, the default) or always hands off ({@link HandOff#ALWAYS})
 */
public record RaftBladeOptions(Duration lease, Duration memberTimeout, Duration transferTimeout,
                               Duration callTimeout, HandOff handOff) {
    /** When a leader hands its leadership off before it collects. */
    public enum HandOff {
        /**
         * Unless at least 8 pauses of the coming generation were measured on this peer and the longest of the last 16
         * was under a quarter of the shortest election timeout: then it collects in place, still under a grant.
         */
        MEASURED,
        /** Before every collection. */
        ALWAYS
    }

    public RaftBladeOptions {
        for (Duration d : new Duration[] {lease, memberTimeout, transferTimeout, callTimeout}) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("durations must be positive: " + d);
            }
        }
        Objects.requireNonNull(handOff, "handOff");
    }

    /** The same settings with {@link HandOff#MEASURED}. */
    public RaftBladeOptions(Duration lease, Duration memberTimeout, Duration transferTimeout, Duration callTimeout) {
        this(lease, memberTimeout, transferTimeout, callTimeout, HandOff.MEASURED);
    }

    /** @return lease 10 s, member timeout 3 s, transfer timeout 3 s, call timeout 2 s, hand-off when measured */
    public static RaftBladeOptions defaults() {
        return new RaftBladeOptions(Duration.ofSeconds(10), Duration.ofSeconds(3), Duration.ofSeconds(3),
            Duration.ofSeconds(2));
    }

    /** @return these settings with another hand-off rule */
    public RaftBladeOptions withHandOff(HandOff rule) {
        return new RaftBladeOptions(lease, memberTimeout, transferTimeout, callTimeout, rule);
    }
}
