package io.bladegc.ratis;

import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import io.bladegc.api.grant.Preparation;
import io.bladegc.api.grant.Prepared;
import io.bladegc.api.grant.RecentLongest;
import io.bladegc.api.grant.RecentPauses;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * A Raft peer's step under its grant, right before it drains and collects (BLADE section 4.2, figure 5): a leader
 * either hands off every group it leads on this server ({@link LeadershipHandoff}), so that it collects as a follower,
 * or collects in place, whichever costs its clients less. A follower has nothing to do.
 *
 * <p><b>Hide only where it pays.</b> With {@link RaftBladeOptions.HandOff#MEASURED} (the default) a leader collects in
 * place when
 * <ul>
 *   <li>at least {@value #MIN_PAUSES} pauses of that generation were seen in this JVM (every collection's, the JVM's
 *       own and those before arming too: {@link RecentPauses}), and the longest of the last
 *       {@value RecentPauses#WINDOW}, each weighed {@value #AGING} for every newer one and halved for every
 *       {@value RecentPauses#HALF_LIFE_SECONDS} s it came before the newest ({@link RecentPauses#agedLongest}), is
 *       under {@value #IN_PLACE_SHARE} of the shortest election timeout: a Ratis leader heartbeats every half
 *       election timeout when idle, so a follower then hears from it within the timeout, with room for a late
 *       wake-up (a longer pause risks an election: clients would wait for it);</li>
 *   <li>and its clients would wait less for the pause than for a hand-off: the {@value #COST_QUANTILE} quantile of
 *       those pauses, aged alike ({@link RecentPauses#agedQuantile}), against the same quantile of this peer's last
 *       {@value #HAND_OFFS_KEPT} hand-offs, each timed from the transfer's start until the successor served
 *       ({@link LeadershipHandoff#awaitSuccessorReady}), which is what clients feel, not until the step-down. Before
 *       any hand-off was timed a pause that is safe is taken in place: that is what the JVM would do without
 *       Blade.</li>
 * </ul>
 * Otherwise it hands off; never with {@link RaftBladeOptions.HandOff#ALWAYS} in place. Each decision's two numbers
 * go into its GC event's line, and the holder counts them ({@code HandOffs}, {@code InPlace}).
 *
 * <p>While it leads and its young pauses would not be taken in place, its lead ({@link #leadNanos}) is the longest of
 * its last hand-offs (all groups of one collection together), or {@link #FIRST_HAND_OFF} before one was timed: the
 * watcher asks that much earlier, so that the JVM does not collect on its own while the leader hands off.
 *
 * <p>Not thread-safe: the grant-holder's one thread; {@link #leadNanos} from any thread.
 */
final class RaftHandOff implements Preparation {
    /**
     * Pauses of a generation seen before a leader may collect in place: two, each under the bound, make a pause past
     * the election timeout (2.5 times the bound) unlikely. Counting only the holder's own collections it was 8, which
     * raft-kv's peers (3-7 collections in a 120 s window, 2-4 in a 20 s one) never reached: every leader collection was
     * a hand-off, 49-770 ms to the successor serving, where G1 pauses 10-30 ms; with 4 counted from the JVM's start,
     * 11 of 12 leader collections in a quick run still handed off (160-470 ms).
     */
    static final int MIN_PAUSES = 2;
    /** Hand-offs kept: their longest is the lead, their {@value #COST_QUANTILE} quantile their cost. */
    static final int HAND_OFFS_KEPT = 8;
    /**
     * What each newer pause takes off an older one's weight in the safety check: raft-kv's preload promoted 500,000
     * keys in three G1 young pauses of 76-137 ms, then pauses were 9-58 ms; with the plain longest of 16 those three
     * kept every leader collection of the 120 s window a hand-off (2026-11-28). A 137 ms pause weighs under 60 ms
     * after four newer ones.
     */
    static final double AGING = 0.8;
    /** The share of the shortest election timeout a leader's longest recent pause must stay under to run in place. */
    static final double IN_PLACE_SHARE = 0.4;
    /** Where in their distributions pauses and hand-offs are compared. */
    static final double COST_QUANTILE = 0.75;
    /** The longest a leader that stepped down waits for its successor to serve before it collects. */
    static final long SUCCESSOR_READY_MILLIS = 300;
    /**
     * A leader's lead before its first hand-off was timed. The first in a fresh JVM runs cold: 260-440 ms in
     * {@code RaftInvariantsIT} on a quiet machine, where warm ones take 24-42 ms; with the schedule's first lead
     * (100 ms) alone, such a leader's JVM collected on its own during the hand-off, unscheduled. On a loaded machine
     * (load 10-28 on two cores) first ones took 100-1040 ms, 5 of 14 over 500 ms, and with 500 ms here a leader's JVM
     * collected on its own during or right after its first hand-off in 2 of 13 runs (and in the CI run that failed:
     * 729 ms). The watcher still caps the whole lead at three quarters of eden's fill time: a leader's first
     * collection may come with eden a quarter full, once.
     */
    static final Duration FIRST_HAND_OFF = Duration.ofMillis(1_000);

    private final LeadershipHandoff handoff;
    private final SlotClient slots;
    private final RaftBladeOptions options;
    /** The longest recent pause that may run in place. */
    private final long inPlaceBoundNanos;
    private final RecentLongest handOffs = new RecentLongest(HAND_OFFS_KEPT, FIRST_HAND_OFF.toNanos());

    RaftHandOff(LeadershipHandoff handoff, SlotClient slots, RaftBladeOptions options) {
        this.inPlaceBoundNanos = (long) (handoff.electionTimeoutMinNanos() * IN_PLACE_SHARE);
        this.handoff = handoff;
        this.slots = slots;
        this.options = options;
    }

    @Override
    public Prepared prepare(GcRequest request, RecentPauses pauses) {
        long start = System.nanoTime();
        try {
            if (handoff.ledGroups().isEmpty()) {
                return Prepared.NOTHING;
            }
            Choice c = choose(request.generation(), pauses);
            if (c.inPlace()) {
                return new Prepared(Prepared.Kind.IN_PLACE, c.why(), System.nanoTime() - start);
            }
            return handOffAll(start, c.why());
        } catch (IOException e) {
            return new Prepared(Prepared.Kind.FAILED, "hand-off failed: " + e.getMessage(), System.nanoTime() - start);
        }
    }

    /** A leader's choice for one collection, with its numbers. */
    record Choice(boolean inPlace, String why) {
    }

    /** @return whether a leader collects a pause of {@code generation} in place, and why (its two numbers) */
    Choice choose(Generation generation, RecentPauses pauses) {
        if (options.handOff() == RaftBladeOptions.HandOff.ALWAYS) {
            return new Choice(false, "hands off always");
        }
        int n = pauses.count(generation);
        if (n < MIN_PAUSES) {
            return new Choice(false, n + " " + generation + " pauses measured, fewer than " + MIN_PAUSES);
        }
        long longest = pauses.agedLongest(generation, AGING);
        if (longest >= inPlaceBoundNanos) {
            return new Choice(false, "longest of the last " + n + " " + generation + " pauses " + ms(longest)
                + " aged, not under " + ms(inPlaceBoundNanos) + " (" + IN_PLACE_SHARE + " of the election timeout)");
        }
        long pause = pauses.agedQuantile(generation, COST_QUANTILE, AGING);
        long handOff = handOffs.quantile(COST_QUANTILE);
        String numbers = generation + " pause p" + Math.round(COST_QUANTILE * 100) + " aged " + ms(pause)
            + " (longest aged " + ms(longest) + ") against hand-off " + (handOff < 0 ? "none timed yet"
            : "p" + Math.round(COST_QUANTILE * 100) + " " + ms(handOff));
        return handOff >= 0 && handOff < pause ? new Choice(false, numbers) : new Choice(true, numbers);
    }

    /**
     * Hands off every group it leads, each until its successor serves (or {@value #SUCCESSOR_READY_MILLIS} ms after the
     * step-down). The note reads {@code handed <group> to <peer> in <ms> ms: <phases>, successor serving} per group,
     * the time being what its clients waited, then why it handed off.
     */
    private Prepared handOffAll(long start, String why) throws IOException {
        StringBuilder note = new StringBuilder();
        for (RaftGroupId g : handoff.ledGroups()) {
            long t = System.nanoTime();
            long term = handoff.term(g);
            LeadershipHandoff.Transfer to = handoff.handOff(g, slots, options.transferTimeout().toMillis());
            if (!to.steppedDown()) {
                return new Prepared(Prepared.Kind.FAILED, "leadership of " + g + " not handed off within "
                    + options.transferTimeout().toMillis() + " ms (" + to.phases() + "); not collecting while leader; "
                    + why, System.nanoTime() - start);
            }
            boolean ready = handoff.awaitSuccessorReady(g, term, SUCCESSOR_READY_MILLIS);
            if (!ready && handoff.ledGroups().contains(g)) {
                // the successor's election failed (its log a late entry short, say) and this peer was elected again:
                // collecting now would pause the leader after clients already waited for the hand-off, which counts
                handOffs.add(System.nanoTime() - start);
                return new Prepared(Prepared.Kind.FAILED, "leadership of " + shortId(g) + " handed to " + to.to()
                    + " came back within " + ms(System.nanoTime() - t) + " (" + to.phases() + "); not collecting"
                    + " while leader; " + why, System.nanoTime() - start);
            }
            note.append("handed ").append(shortId(g)).append(" to ")
                .append(to.to() == null ? "a leader not known yet" : to.to().toString()).append(" in ")
                .append(ms(System.nanoTime() - t)).append(": ").append(to.phases()).append(", ")
                .append(ready ? "successor serving" : "successor not seen serving within " + SUCCESSOR_READY_MILLIS
                    + " ms of the step-down").append("; ");
        }
        long took = System.nanoTime() - start;
        handOffs.add(took);
        return new Prepared(Prepared.Kind.HANDED_OFF, note.append(why).toString(), took);
    }

    /**
     * @return the longest recent hand-off while this peer leads a group and its young pauses would not be taken in
     *     place, else 0 (a leader that collects in place would only collect a less full eden by asking earlier)
     */
    @Override
    public long leadNanos(RecentPauses pauses) {
        return handoff.leadsAny() && !safeInPlace(Generation.YOUNG, pauses) ? handOffs.longest() : 0;
    }

    /**
     * @return whether this leader's pauses of {@code generation} are measured safe to run in place; thread-safe (the
     *     watcher's thread asks, for {@link #leadNanos}, without the hand-off's cost, which only the holder's thread
     *     reads)
     */
    private boolean safeInPlace(Generation generation, RecentPauses pauses) {
        return options.handOff() != RaftBladeOptions.HandOff.ALWAYS && pauses.count(generation) >= MIN_PAUSES
            && pauses.agedLongest(generation, AGING) < inPlaceBoundNanos;
    }

    static String shortId(RaftGroupId g) {
        String s = g.toString();
        return s.length() > 12 ? s.substring(s.length() - 12) : s;
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
