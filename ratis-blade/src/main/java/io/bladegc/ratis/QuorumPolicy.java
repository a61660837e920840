package io.bladegc.ratis;

import io.bladegc.api.slot.SlotPolicy;
import java.time.Duration;

/**
 * The slot policy that keeps a Raft group able to commit: of {@code n} peers, a majority {@code n / 2 + 1} must stay
 * live and not collecting, so at most {@code n - majority} collect at once. Peers that are down (lost as members:
 * silent past the member timeout) or never joined count against it: a 3-peer group with one peer down grants
 * nothing. Groups of 1 or 2 peers never grant (no peer can be spared).
 */
public final class QuorumPolicy {
    private QuorumPolicy() {
    }

    /**
     * @param peers         the group's size (voting members)
     * @param lease         a grant's lifetime
     * @param memberTimeout a peer silent this long counts as down
     * @return the policy for a group of {@code peers}
     */
    public static SlotPolicy of(int peers, Duration lease, Duration memberTimeout) {
        if (peers < 1) {
            throw new IllegalArgumentException("a Raft group has at least one peer: " + peers);
        }
        int majority = peers / 2 + 1;
        return new SlotPolicy(Math.max(1, peers - majority), 0, majority, lease.toMillis(), memberTimeout.toMillis());
    }
}
