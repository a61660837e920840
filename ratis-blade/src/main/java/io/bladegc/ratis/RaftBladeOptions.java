package io.bladegc.ratis;

import java.time.Duration;

/**
 * Settings of Blade for a Ratis peer. Immutable.
 *
 * @param lease           a grant's lifetime: a peer that neither releases nor renews loses its slot then (default
 *                        10 s)
 * @param memberTimeout   a peer silent this long counts as down, against the majority (default 3 s); peers heartbeat
 *                        every third of it
 * @param transferTimeout how long a leader waits for its leadership to move before it gives up and does not collect
 *                        (default 3 s)
 * @param callTimeout     how long one call to the slot group may take (default 2 s)
 */
public record RaftBladeOptions(Duration lease, Duration memberTimeout, Duration transferTimeout,
                               Duration callTimeout) {
    public RaftBladeOptions {
        for (Duration d : new Duration[] {lease, memberTimeout, transferTimeout, callTimeout}) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("durations must be positive: " + d);
            }
        }
    }

    /** @return lease 10 s, member timeout 3 s, transfer timeout 3 s, call timeout 2 s */
    public static RaftBladeOptions defaults() {
        return new RaftBladeOptions(Duration.ofSeconds(10), Duration.ofSeconds(3), Duration.ofSeconds(3),
            Duration.ofSeconds(2));
    }
}
