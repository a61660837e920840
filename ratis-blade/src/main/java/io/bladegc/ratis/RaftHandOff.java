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
 * A Raft peer's step before it asks for a slot (BLADE section 4.2, figure 5): a leader hands off every group it leads
 * on this server ({@link LeadershipHandoff}), so that it collects as a follower and no election follows its pause.
 *
 * <p>A leader collects in place, without a hand-off, only when its pauses are measured to be safe: with
 * {@link RaftBladeOptions.HandOff#MEASURED} (the default), when at least {@value #MIN_PAUSES} pauses of that generation
 * were measured and the longest of the last {@value RecentPauses#WINDOW} is under a quarter of the shortest election
 * timeout (well under the half at which followers may start an election); never with
 * {@link RaftBladeOptions.HandOff#ALWAYS}.
 *
 * <p>While it leads and its young pauses are not measured safe to run in place, its lead ({@link #leadNanos}) is the
 * longest of its last {@value #HAND_OFFS_KEPT} hand-offs (all groups of one collection together), or
 * {@link #FIRST_HAND_OFF} before one was timed: the watcher asks that much earlier, so that the JVM does not collect on
 * its own while the leader hands off.
 *
 * <p>Not thread-safe: the grant-holder's one thread; {@link #leadNanos} from any thread.
 */
final class RaftHandOff implements Preparation {
    /** Pauses of a generation measured before a leader may collect in place. */
    static final int MIN_PAUSES = 8;
    /** Hand-offs whose longest is the lead. */
    static final int HAND_OFFS_KEPT = 8;
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
    /** A quarter of the shortest election timeout: pauses under it may run in place. */
    private final long inPlaceBoundNanos;
    private final RecentLongest handOffs = new RecentLongest(HAND_OFFS_KEPT, FIRST_HAND_OFF.toNanos());

    RaftHandOff(LeadershipHandoff handoff, SlotClient slots, RaftBladeOptions options) {
        this.inPlaceBoundNanos = handoff.electionTimeoutMinNanos() / 4;
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
            String inPlace = inPlaceReason(request.generation(), pauses);
            if (inPlace != null) {
                return new Prepared(Prepared.Kind.IN_PLACE, inPlace, System.nanoTime() - start);
            }
            return handOffAll(start);
        } catch (IOException e) {
            return new Prepared(Prepared.Kind.FAILED, "hand-off failed: " + e.getMessage(), System.nanoTime() - start);
        }
    }

    /** A leader elected again while it waited for its grant hands off again; one that collects in place does not. */
    @Override
    public Prepared confirm(Prepared prepared) {
        if (prepared.kind() == Prepared.Kind.IN_PLACE) {
            return Prepared.NOTHING;
        }
        long start = System.nanoTime();
        try {
            return handoff.ledGroups().isEmpty() ? Prepared.NOTHING : handOffAll(start);
        } catch (IOException e) {
            return new Prepared(Prepared.Kind.FAILED, "cannot tell whether it leads: " + e.getMessage(),
                System.nanoTime() - start);
        }
    }

    private Prepared handOffAll(long start) throws IOException {
        StringBuilder note = new StringBuilder();
        for (RaftGroupId g : handoff.ledGroups()) {
            long t = System.nanoTime();
            LeadershipHandoff.Transfer to = handoff.handOff(g, slots, options.transferTimeout().toMillis());
            if (!to.steppedDown()) {
                return new Prepared(Prepared.Kind.FAILED, "leadership of " + g + " not handed off within "
                    + options.transferTimeout().toMillis() + " ms (" + to.phases() + "); not collecting while leader",
                    System.nanoTime() - start);
            }
            note.append(note.length() == 0 ? "" : "; ").append("handed ").append(shortId(g)).append(" to ")
                .append(to.to() == null ? "a leader not known yet" : to.to().toString()).append(" in ")
                .append(ms(System.nanoTime() - t)).append(": ").append(to.phases());
        }
        long took = System.nanoTime() - start;
        handOffs.add(took);
        return new Prepared(Prepared.Kind.HANDED_OFF, note.toString(), took);
    }

    /**
     * @return the longest recent hand-off while this peer leads a group and its young pauses are not measured safe to
     *     run in place, else 0 (a leader that collects in place would only collect a less full eden by asking earlier)
     */
    @Override
    public long leadNanos(RecentPauses pauses) {
        return !inPlace(Generation.YOUNG, pauses) && handoff.leadsAny() ? handOffs.longest() : 0;
    }

    /** @return why this leader may collect without a hand-off, or {@code null} when it must hand off */
    private String inPlaceReason(Generation generation, RecentPauses pauses) {
        if (!inPlace(generation, pauses)) {
            return null;
        }
        return "leader collecting in place: its last " + pauses.count(generation) + " " + generation
            + " pauses were at most " + ms(pauses.longest(generation)) + ", under a quarter of the election timeout ("
            + ms(inPlaceBoundNanos * 4) + ")";
    }

    /** @return whether this leader's pauses of {@code generation} are measured safe to run without a hand-off */
    private boolean inPlace(Generation generation, RecentPauses pauses) {
        return options.handOff() != RaftBladeOptions.HandOff.ALWAYS && pauses.count(generation) >= MIN_PAUSES
            && pauses.longest(generation) < inPlaceBoundNanos;
    }

    static String shortId(RaftGroupId g) {
        String s = g.toString();
        return s.length() > 12 ? s.substring(s.length() - 12) : s;
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
