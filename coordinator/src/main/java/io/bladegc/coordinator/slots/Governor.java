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
 * Hiding a collection takes a node out of rotation while the others carry its share. It costs more than the collector
 * alone in two cases, and the coordinator then steps down ({@link Mode#OBSERVE}: every acquire is answered
 * {@link SlotReply.Kind#UNSCHEDULED}, the JVMs collect as they would without Blade, and the coordinator goes on
 * measuring):
 * <ul>
 *   <li>The members' collections come due faster than the slots serve them: the slot demand ({@link SlotDemand}) has
 *       stayed above the capacity for {@value #STEP_DOWN_MILLIS} ms. The demand is measured while observing too (the
 *       holds measured while hiding, over the periods measured since), so the coordinator steps back up once it has
 *       stayed for {@value #STEP_UP_MILLIS} ms under {@link SlotDemand#FEASIBLE_AGAIN} of the capacity and under
 *       {@value #RECOVER_SHARE} of the demand at which it stepped down (the load fell).</li>
 *   <li>Many collections escape though the demand looks low: at least {@value #ESCAPED_SHARE} of the last
 *       {@value #OUTCOMES} ran with requests inside, before their node asked or
 *       while it waited for a slot, often while another node was out: the remaining nodes cannot carry the share of one
 *       out of rotation at this load. A hidden collection is a release; the escapes are what the members count and
 *       report in their heartbeats ({@link #escaped}), since most escape before their node asks and the coordinator
 *       never hears of them otherwise. Whether hiding would work again can be seen only by hiding, so the coordinator
 *       steps down at once and tries again after {@value #FIRST_RETRY_MILLIS} ms, or as soon as the load has fallen to
 *       where the others can carry the share of the nodes out: the members' summed allocation rate (their
 *       heartbeats', {@link #allocating}) has stayed for {@value #LOAD_FELL_MILLIS} ms under {@value #HEADROOM} of its
 *       highest since the step down (the load that failed, often a saturating burst) times (n - capacity) / n, n the
 *       members (with three and one slot: under 0.6 of it), or the demand has fallen as above. A try that fails steps down again at once and doubles the wait (at most
 *       {@value #MAX_RETRY_MILLIS} ms); one that hides {@value #OUTCOMES} collections without that many escapes resets
 *       it, and so does a fall of the load. So a saturating burst costs the seconds it lasts of observing, and a load
 *       that stays too high a few seconds of hiding per try.</li>
 * </ul>
 * The capacity is K, and never more than the live members less {@code minHealthy}.
 *
 * <p>Measured in the load sweep of 2026-11-29 (Blade on G1, K = 1): the demand stayed at 0.3-0.6 of the one slot while
 * 20-59 % of the collections escaped at 70-110 % of G1's saturation and Blade's p99.9 was 1.07-1.15x G1's at 70-85 %
 * (its steady state 6x at 70 %); the demand alone never stepped down. Of 58 escapes in a quick check at 85 %, the
 * ledger saw 10 (cancels): judged from cancels, the escape share never stepped down either. Stepping down for escapes
 * only after 5 s of them, and up only once the demand fell, left a 25 % window after a saturating burst observing
 * throughout (2026-11-29, evening).
 *
 * <p>Fed and judged on the slot executor's thread only; not thread-safe.
 */
final class Governor {
    /** How long the demand must have exceeded the capacity before the coordinator steps down. */
    static final long STEP_DOWN_MILLIS = 5_000;
    /** How long the demand must stay under the step-up bound before it steps back up. */
    static final long STEP_UP_MILLIS = 5_000;
    /** The share of the last {@link #OUTCOMES} collections that escaped at which hiding has failed. */
    static final double ESCAPED_SHARE = 0.2;
    /** How many of the members' last collections (hidden or escaped) the escape share is judged over. */
    static final int OUTCOMES = 20;
    /** How long after stepping down for escapes the coordinator first tries hiding again. */
    static final long FIRST_RETRY_MILLIS = 5_000;
    /** The longest wait between tries. */
    static final long MAX_RETRY_MILLIS = 80_000;
    /** How long the members' allocation rate must stay fallen before the coordinator tries again: a heartbeat more. */
    static final long LOAD_FELL_MILLIS = 1_000;
    /** The share of their capacity the nodes left serving may carry while others collect. */
    static final double HEADROOM = 0.9;
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
    /** Each member's escapes as its last heartbeat counted them; counting starts anew at each step up. */
    private final Map<String, Long> escapes = new HashMap<>();
    /** Each member's allocation rate as its last heartbeat said it, bytes per second. */
    private final Map<String, Long> allocationRates = new HashMap<>();
    /** While observing after escapes: the members' highest summed allocation rate since, bytes per second. */
    private long peakRate;
    /** Since when the members' allocation rate has been low enough to try hiding again, or -1. */
    private long fellSince = -1;
    /** The last {@link #OUTCOMES} collections while hiding, oldest first: {@code true} for one that escaped. */
    private final ArrayDeque<Boolean> outcomes = new ArrayDeque<>();
    private Mode mode = Mode.HIDE;
    /** Since when the demand has exceeded the capacity, or -1. */
    private long overSince = -1;
    /** While observing after escapes: when to try hiding again, else -1. */
    private long retryAt = -1;
    /** The wait before the next try after escapes. */
    private long retryMillis = FIRST_RETRY_MILLIS;
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
                allocationRates.remove(e.node());
            }
            default -> {
            }
        }
    }

    /**
     * {@code node}'s heartbeat counts {@code total} escapes since its JVM started: each one since its previous heartbeat
     * is an outcome. The first count a member reports (after it joined, after the coordinator started, or after it
     * stepped up: escapes while it observed are not a try's) and one lower than the last (the JVM restarted) only set
     * where counting goes on from.
     */
    void escaped(String node, long total) {
        Long last = escapes.put(node, total);
        if (last != null && total > last) {
            for (long i = 0; i < Math.min(total - last, OUTCOMES); i++) {
                outcome(true);
            }
        }
    }

    /** {@code node}'s heartbeat says its application allocates {@code bytesPerSecond}: the load it carries. */
    void allocating(String node, long bytesPerSecond) {
        allocationRates.put(node, bytesPerSecond);
    }

    /** @return the members' summed allocation rate as their last heartbeats said it, bytes per second */
    long allocationRate() {
        long sum = 0;
        for (long r : allocationRates.values()) {
            sum += r;
        }
        return sum;
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
            double escaped = escapedShare();
            if (overSince >= 0 && now - overSince >= STEP_DOWN_MILLIS) {
                stepDown(capacity, need, -1);
                lines.add(String.format(Locale.ROOT, "stepping down: for %d s the slot demand has been %.2f, above the"
                    + " %d slot(s); hiding collections now costs more than it saves, so every JVM collects on its own,"
                    + " as without Blade, until the slot demand has stayed under %.2f for %d s (a collector with"
                    + " shorter pauses, such as G1 in place of Parallel, serves such a load better)",
                    (now - overSince) / 1000, need, capacity, stepUpUnder, STEP_UP_MILLIS / 1000));
            } else if (escaped >= ESCAPED_SHARE) {
                stepDown(capacity, need, now + retryMillis);
                lines.add(String.format(Locale.ROOT, "stepping down: %.0f %% of the last %d collections escaped (the"
                    + " slot demand %.2f): the other nodes cannot carry the share of one out of rotation at this load,"
                    + " so every JVM collects on its own, as without Blade; trying again in %d s (a collector with"
                    + " shorter pauses, such as G1 in place of Parallel, serves such a load better)", 100 * escaped,
                    OUTCOMES, need, retryMillis / 1000));
                retryMillis = Math.min(2 * retryMillis, MAX_RETRY_MILLIS);
            } else if (outcomes.size() == OUTCOMES) {
                retryMillis = FIRST_RETRY_MILLIS; // hiding works at this load
            }
        } else {
            underSince = need >= stepUpUnder ? -1 : underSince < 0 ? now : underSince;
            long rate = allocationRate();
            peakRate = Math.max(peakRate, rate);
            int n = allocationRates.size();
            double carried = n > capacity ? HEADROOM * (n - capacity) / n : 0;
            fellSince = retryAt < 0 || rate >= carried * peakRate ? -1 : fellSince < 0 ? now : fellSince;
            if (underSince >= 0 && now - underSince >= STEP_UP_MILLIS) {
                lines.add(String.format(Locale.ROOT, "stepping up: the slot demand has stayed under %.2f for %d s (now"
                    + " %.2f); hiding collections again", stepUpUnder, (now - underSince) / 1000, need));
                stepUp(true);
            } else if (fellSince >= 0 && now - fellSince >= LOAD_FELL_MILLIS) {
                lines.add(String.format(Locale.ROOT, "stepping up: the members allocate %d MB/s, under %.2f of the %d"
                    + " MB/s since the step down (the load fell to where the others can carry the share of the nodes"
                    + " out); hiding collections again", rate / 1_000_000, carried, peakRate / 1_000_000));
                stepUp(true);
            } else if (retryAt >= 0 && now >= retryAt) {
                lines.add(String.format(Locale.ROOT, "stepping up to try hiding collections again (the slot demand"
                    + " %.2f)", need));
                stepUp(false);
            }
        }
        return lines;
    }

    /** Observes from now on; {@code retryAt}: when to try hiding again, -1 once the demand falls. */
    private void stepDown(int capacity, double need, long retryAt) {
        mode = Mode.OBSERVE;
        stepUpUnder = Math.min(SlotDemand.FEASIBLE_AGAIN * capacity, RECOVER_SHARE * need);
        underSince = -1;
        this.retryAt = retryAt;
        peakRate = allocationRate();
        fellSince = -1;
        outcomes.clear();
    }

    /** Hides from now on; {@code loadFell}: what failed at the old load says nothing of this one (the wait resets). */
    private void stepUp(boolean loadFell) {
        if (loadFell) {
            retryMillis = FIRST_RETRY_MILLIS;
        }
        mode = Mode.HIDE;
        overSince = -1;
        retryAt = -1;
        outcomes.clear();
        escapes.clear(); // what the next heartbeats count anew from: escapes while observing are not the try's
    }
}
