package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whether the coordinator hides the members' collections or leaves them to their JVMs, from what hiding achieved.
 * Hiding a collection takes a node out of rotation while the others carry its share; when the members' collections
 * come due faster than the slots serve them ({@link SlotDemand} above the capacity), or when many of them run before
 * they are hidden anyway (at least {@value #ESCAPED_SHARE} of the last {@value #OUTCOMES} escaped: the JVM collected on
 * its own with requests inside, before its node asked or while it waited for a slot, often while another node was out),
 * hiding costs more than the collector alone. A hidden collection is a release; the escapes are what the members count
 * and report in their heartbeats ({@link #escaped}), since most escape before their node asks and the coordinator
 * never hears of them otherwise. So the coordinator
 * steps down ({@link Mode#OBSERVE}: every acquire is answered {@link SlotReply.Kind#UNSCHEDULED}, the JVMs collect as
 * they would without Blade, and the coordinator goes on measuring the demand) once either has held for
 * {@value #STEP_DOWN_MILLIS} ms, and back up ({@link Mode#HIDE}) once the demand has stayed for {@value #STEP_UP_MILLIS}
 * ms under {@link SlotDemand#FEASIBLE_AGAIN} of the capacity and under {@value #RECOVER_SHARE} of the demand at which it
 * stepped down (the load fell), so that it does not flap. The capacity is K, and never more than the live members less
 * {@code minHealthy}. While it observes, the demand is what hiding every collection would need: the holds measured
 * while it hid, over the periods measured since.
 *
 * <p>Measured in the load sweep of 2026-11-29 (Blade on G1, K = 1): the demand stayed at 0.3-0.6 of the one slot while
 * 20-59 % of the collections escaped at 70-110 % of G1's saturation and Blade's p99.9 was 1.07-1.15x G1's at 70-85 %
 * (its steady state 6x at 70 %); the demand alone never stepped down. Of 58 escapes in a quick check at 85 %, the
 * ledger saw 10 (cancels): judged from cancels, the escape share never stepped down either.
 *
 * <p>Fed and judged on the slot executor's thread only; not thread-safe.
 */
final class Governor {
    /** How long hiding must have failed (the demand above the capacity, or escapes) before the coordinator steps down. */
    static final long STEP_DOWN_MILLIS = 5_000;
    /** How long the demand must stay under the step-up bound before it steps back up. */
    static final long STEP_UP_MILLIS = 5_000;
    /** The share of the last {@link #OUTCOMES} collections that escaped at which hiding has failed. */
    static final double ESCAPED_SHARE = 0.2;
    /** How many of the members' last collections (hidden or escaped) the escape share is judged over. */
    static final int OUTCOMES = 20;
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
    /** Each member's escapes as its last heartbeat counted them. */
    private final Map<String, Long> escapes = new HashMap<>();
    /** The last {@link #OUTCOMES} collections while hiding, oldest first: {@code true} for one that escaped. */
    private final ArrayDeque<Boolean> outcomes = new ArrayDeque<>();
    private Mode mode = Mode.HIDE;
    /** Since when hiding has failed, or -1. */
    private long failingSince = -1;
    /** Since when the demand has been under {@link #stepUpUnder}, or -1. */
    private long underSince = -1;
    /** While observing: the demand to stay under before stepping back up. */
    private double stepUpUnder;

    /** Takes one ledger event into account. */
    void event(SlotEvent e) {
        demand.event(e);
        switch (e.type()) {
            case RELEASED -> outcome(false);
            case LEFT, LOST -> {
                unscheduledGcIds.remove(e.node());
                escapes.remove(e.node());
            }
            default -> {
            }
        }
    }

    /**
     * {@code node}'s heartbeat counts {@code total} escapes since its JVM started: each one since its previous heartbeat
     * is an outcome. The first count a member reports (after it joined, or after the coordinator started) and one lower
     * than the last (the JVM restarted) only set where counting goes on from.
     */
    void escaped(String node, long total) {
        Long last = escapes.put(node, total);
        if (last != null && total > last) {
            for (long i = 0; i < Math.min(total - last, OUTCOMES); i++) {
                outcome(true);
            }
        }
    }

    /** Notes how a collection asked for while hiding ended; while observing there is none to judge. */
    private void outcome(boolean escaped) {
        if (mode == Mode.OBSERVE) {
            return;
        }
        outcomes.addLast(escaped);
        if (outcomes.size() > OUTCOMES) {
            outcomes.removeFirst();
        }
    }

    /** @return the share of the last {@link #OUTCOMES} collections that escaped, or 0 before that many */
    double escapedShare() {
        if (outcomes.size() < OUTCOMES) {
            return 0;
        }
        return outcomes.stream().filter(Boolean::booleanValue).count() / (double) outcomes.size();
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
            failingSince = -1;
            underSince = -1;
            return List.of();
        }
        List<String> lines = new ArrayList<>();
        String change = demand.judge(capacity, now);
        if (change != null) {
            lines.add(change);
        }
        double need = demand.slots(now);
        double escaped = escapedShare();
        if (mode == Mode.HIDE) {
            boolean failing = need > capacity || escaped >= ESCAPED_SHARE;
            failingSince = !failing ? -1 : failingSince < 0 ? now : failingSince;
            if (failing && now - failingSince >= STEP_DOWN_MILLIS) {
                mode = Mode.OBSERVE;
                stepUpUnder = Math.min(SlotDemand.FEASIBLE_AGAIN * capacity, RECOVER_SHARE * need);
                underSince = -1;
                outcomes.clear();
                lines.add(String.format(Locale.ROOT, "stepping down: for %d s %s; hiding collections now costs more"
                    + " than it saves, so every JVM collects on its own, as without Blade, until the slot demand has"
                    + " stayed under %.2f for %d s (a collector with shorter pauses, such as G1 in place of Parallel,"
                    + " serves such a load better)", (now - failingSince) / 1000, need > capacity
                        ? String.format(Locale.ROOT, "the slot demand has been %.2f, above the %d slot(s)", need,
                            capacity)
                        : String.format(Locale.ROOT, "%.0f %% of the last %d collections escaped (the slot demand %.2f)",
                            100 * escaped, OUTCOMES, need), stepUpUnder, STEP_UP_MILLIS / 1000));
            }
        } else {
            underSince = need >= stepUpUnder ? -1 : underSince < 0 ? now : underSince;
            if (underSince >= 0 && now - underSince >= STEP_UP_MILLIS) {
                mode = Mode.HIDE;
                failingSince = -1;
                outcomes.clear();
                lines.add(String.format(Locale.ROOT, "stepping up: the slot demand has stayed under %.2f for %d s (now"
                    + " %.2f); hiding collections again", stepUpUnder, (now - underSince) / 1000, need));
            }
        }
        return lines;
    }
}
