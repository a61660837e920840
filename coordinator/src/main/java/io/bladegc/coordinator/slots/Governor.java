package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * Whether the coordinator hides the members' collections or leaves them to their JVMs, from the demand on the slots
 * ({@link SlotDemand}). Hiding a collection takes a node out of rotation while the others carry its share; when the
 * members' collections come due faster than the slots serve them, requests queue until their JVMs collect on their own
 * anyway, with requests inside, while another node is out: worse than the collector alone. So the coordinator steps
 * down ({@link Mode#OBSERVE}: every acquire is answered {@link SlotReply.Kind#UNSCHEDULED}, the JVMs collect as they
 * would without Blade, and the coordinator goes on measuring) once the demand has exceeded the capacity for
 * {@value #STEP_DOWN_MILLIS} ms, and back up ({@link Mode#HIDE}) once it has stayed under
 * {@link SlotDemand#FEASIBLE_AGAIN} of it for {@value #STEP_UP_MILLIS} ms: a demand near the capacity does not flap. The capacity is K, and never more
 * than the live members less {@code minHealthy}. While it observes, the demand is what hiding every collection would
 * need: the holds measured while it hid, over the periods measured since.
 *
 * <p>Fed and judged on the slot executor's thread only; not thread-safe.
 */
final class Governor {
    /** How long the demand must exceed the capacity before the coordinator steps down. */
    static final long STEP_DOWN_MILLIS = 5_000;
    /** How long it must stay under {@link SlotDemand#FEASIBLE_AGAIN} of the capacity before it steps back up. */
    static final long STEP_UP_MILLIS = 10_000;

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
    /** Since when it has been under {@link SlotDemand#FEASIBLE_AGAIN} of the capacity, or -1. */
    private long underSince = -1;

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
     * Judges the demand against the capacity and steps down or up.
     *
     * @param capacity how many may collect at once: K, at most the live members less {@code minHealthy}
     * @param now      the coordinator's clock
     * @return the lines to log: the demand coming to exceed the capacity or going back under it, and a step
     */
    List<String> judge(int capacity, long now) {
        List<String> lines = new ArrayList<>();
        String change = demand.judge(capacity, now);
        if (change != null) {
            lines.add(change);
        }
        double need = demand.slots(now);
        if (need > capacity) {
            underSince = -1;
            overSince = overSince < 0 ? now : overSince;
            if (mode == Mode.HIDE && now - overSince >= STEP_DOWN_MILLIS) {
                mode = Mode.OBSERVE;
                lines.add(String.format(Locale.ROOT, "stepping down: the slot demand has been %.2f, above the %d"
                    + " slot(s), for %d s; hiding every collection would keep nodes out of rotation while others"
                    + " collect anyway, so every JVM now collects on its own, as without Blade, until the demand has"
                    + " stayed under %.1f for %d s (a collector with shorter pauses, such as G1 in place of Parallel,"
                    + " serves such a load better)", need, capacity, (now - overSince) / 1000,
                    SlotDemand.FEASIBLE_AGAIN * capacity, STEP_UP_MILLIS / 1000));
            }
        } else if (need < SlotDemand.FEASIBLE_AGAIN * capacity) {
            overSince = -1;
            underSince = underSince < 0 ? now : underSince;
            if (mode == Mode.OBSERVE && now - underSince >= STEP_UP_MILLIS) {
                mode = Mode.HIDE;
                lines.add(String.format(Locale.ROOT, "stepping up: the slot demand has stayed under %.2f of the %d"
                    + " slot(s) for %d s (now %.2f); hiding collections again", SlotDemand.FEASIBLE_AGAIN * capacity,
                    capacity, (now - underSince) / 1000, need));
            }
        } else {
            overSince = -1;
            underSince = -1;
        }
        return lines;
    }
}
