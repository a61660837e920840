package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether the coordinator hides the members' collections or leaves them to their JVMs, from the slot demand.
 * Hiding a collection takes a node out of rotation while the others carry its share. When the members' collections
 * come due faster than the slots serve them ({@link SlotDemand} above the capacity for {@value #STEP_DOWN_MILLIS} ms),
 * some wait for a slot until their JVMs collect on their own anyway, with requests inside, and hiding costs more than
 * the collector alone. The coordinator then steps down ({@link Mode#OBSERVE}: every acquire is answered
 * {@link SlotReply.Kind#UNSCHEDULED}, the JVMs collect as they would without Blade, and the coordinator goes on
 * measuring the demand: the holds measured while hiding, over the periods measured since), and back up
 * ({@link Mode#HIDE}) once the demand has stayed for {@value #STEP_UP_MILLIS} ms under {@link SlotDemand#FEASIBLE_AGAIN}
 * of the capacity and under {@value #RECOVER_SHARE} of the demand at which it stepped down (the load fell), so that it
 * does not flap. The capacity is K, and never more than the live members less {@code minHealthy}.
 *
 * <p>Why not also the collections that escape: a rule that stepped down once a fifth of the last 20 escaped (as the
 * nodes count them) made Blade on G1 worse in the load sweep of 2026-11-29 (p99.9 0.80x G1's at 40 % of its
 * saturation, 1.64-2.80x at 55-85 %, against 0.59x and 1.07-1.22x with the demand alone, two runs), and in two nodes
 * lined up on purpose (the overlap test, slot demand 0.17) it stepped down for escapes that come from the lockstep,
 * which the nodes' lead times learn away only while the coordinator hides. Measured with the demand alone (same sweep,
 * K = 1): it stayed at 0.3-0.6 of the one slot at 70-110 % while 20-59 % escaped; Blade observing is no better than
 * G1 there (see docs/architecture.md).
 *
 * <p>Fed and judged on the slot executor's thread only; not thread-safe.
 */
final class Governor {
    /** How long the demand must have exceeded the capacity before the coordinator steps down. */
    static final long STEP_DOWN_MILLIS = 5_000;
    /** How long the demand must stay under the step-up bound before it steps back up. */
    static final long STEP_UP_MILLIS = 5_000;
    /** The coordinator steps back up under this share of the demand at which it stepped down. */
    static final double RECOVER_SHARE = 0.8;

    /** What the coordinator does with the collections members ask a slot for. */
    enum Mode {
        /** Grants slots: each collection runs while its node is out of rotation (the default). */
        HIDE,
        /** Grants none: every collection is left to its JVM, as without Blade; the demand is still measured. */
        OBSERVE
    }

    private final SlotDemand demand = new SlotDemand();
    /** Each member's newest GC request left to its JVM: a repeated acquire for it is not another collection. */
    private final Map<String, Long> unscheduledGcIds = new HashMap<>();
    private Mode mode = Mode.HIDE;
    /** Since when the demand has exceeded the capacity, or -1. */
    private long overSince = -1;
    /** Since when the demand has been under {@link #stepUpUnder}, or -1. */
    private long underSince = -1;
    /** While observing: the demand to stay under before stepping back up. */
    private double stepUpUnder;

    /** Takes one ledger event into account. */
    void event(SlotEvent e) {
        demand.event(e);
        if (e.type() == SlotEvent.Type.LEFT || e.type() == SlotEvent.Type.LOST) {
            unscheduledGcIds.remove(e.node());
        }
    }

    /**
     * {@code node}'s GC request {@code gcId} is left to its JVM at {@code at}: one collection, which ends a period
     * (the first time only: an acquire sent again for the same request is not another collection).
     */
    void unscheduled(String node, long gcId, long at) {
        Long last = unscheduledGcIds.get(node);
        if (last == null || gcId > last) {
            unscheduledGcIds.put(node, gcId);
            demand.collected(node, at);
        }
    }

    /** @return what the coordinator does with the collections asked for now */
    Mode mode() {
        return mode;
    }

    /** @return the slots the members' collections need at {@code now} */
    double demand(long now) {
        return demand.slots(now);
    }

    /** @return whether the last judgement found the demand beyond the slots */
    boolean infeasible() {
        return demand.infeasible();
    }

    /**
     * Judges what hiding achieves and steps down or up.
     *
     * @param capacity how many may collect at once: K, at most the live members less {@code minHealthy}; below 1
     *                 (too few members to grant anything, as while they join) nothing is judged
     * @param now      the coordinator's clock
     * @return the lines to log: the demand coming to exceed the capacity or going back under it, and a step
     */
    List<String> judge(int capacity, long now) {
        if (capacity < 1) {
            overSince = -1;
            underSince = -1;
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        String change = demand.judge(capacity, now);
        if (change != null) {
            lines.add(change);
        }
        double need = demand.slots(now);
        if (mode == Mode.HIDE) {
            overSince = need <= capacity ? -1 : overSince < 0 ? now : overSince;
            if (overSince >= 0 && now - overSince >= STEP_DOWN_MILLIS) {
                mode = Mode.OBSERVE;
                stepUpUnder = Math.min(SlotDemand.FEASIBLE_AGAIN * capacity, RECOVER_SHARE * need);
                underSince = -1;
                lines.add(String.format(Locale.ROOT, "stepping down: for %d s the slot demand has been %.2f, above the"
                    + " %d slot(s); hiding collections now costs more than it saves, so every JVM collects on its own,"
                    + " as without Blade, until the slot demand has stayed under %.2f for %d s (a collector with"
                    + " shorter pauses, such as G1 in place of Parallel, serves such a load better)",
                    (now - overSince) / 1000, need, capacity, stepUpUnder, STEP_UP_MILLIS / 1000));
            }
        } else {
            underSince = need >= stepUpUnder ? -1 : underSince < 0 ? now : underSince;
            if (underSince >= 0 && now - underSince >= STEP_UP_MILLIS) {
                lines.add(String.format(Locale.ROOT, "stepping up: the slot demand has stayed under %.2f for %d s (now"
                    + " %.2f); hiding collections again", stepUpUnder, (now - underSince) / 1000, need));
                mode = Mode.HIDE;
                overSince = -1;
            }
        }
        return lines;
    }
}
