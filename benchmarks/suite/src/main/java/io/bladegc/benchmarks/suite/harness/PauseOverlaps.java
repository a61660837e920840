package io.bladegc.benchmarks.suite.harness;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.cluster.ClusterObserver;
import io.bladegc.benchmarks.demo.DemoTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Pauses of two backends at once in one measured window, from each backend's own GC notifications (wall clock): how
 * many pairs overlapped, how many of those the coordinator had not granted both of (with Blade), and after how many
 * of the window's pauses the last unplanned overlap began (with Blade, one not granted: two granted pauses at once are
 * the coordinator's choice), the measure of how long collections stayed in step after the saturating warm-up.
 * Immutable.
 *
 * @param pauses        the window's pauses, all backends
 * @param overlaps      pairs of pauses of different backends that overlapped
 * @param ungranted     of those, pairs in which a pause lay outside every grant of its backend (0 without Blade)
 * @param lastOverlapAt the position (1-based, by start time) of the later pause of the last overlapping pair, without
 *                      Blade, or of the last one not granted, with Blade; 0 when there was none
 */
public record PauseOverlaps(int pauses, int overlaps, int ungranted, int lastOverlapAt) {
    /**
     * A grant's events and a pause's notification are timed apart (the coordinator's event, the JVM's
     * notification): a pause counts as granted when it lies within its backend's grant widened by this much.
     */
    static final long GRANT_SLACK_MS = 50;

    /** One pause of one backend, wall-clock milliseconds. */
    record Pause(String node, long start, long end) {
    }

    /** @return the overlaps among the window's pauses of {@code r}'s backends, judged against its grants if any */
    public static PauseOverlaps of(ClusterArm.Result r) {
        List<Pause> pauses = new ArrayList<>();
        for (ClusterArm.NodeWindow n : r.nodes()) {
            for (JsonNode e : n.end().path("gcPauses")) {
                if (DemoTable.isPause(e)) {
                    long end = e.path("wallEndMs").asLong();
                    pauses.add(new Pause(n.node(), end - e.path("durationMs").asLong(), end));
                }
            }
        }
        return of(pauses, r.observer() == null ? null : r.observer().grants());
    }

    /**
     * @param pauses the window's pauses
     * @param grants the coordinator's grants, or {@code null} without Blade (then {@link #ungranted} is 0)
     */
    static PauseOverlaps of(List<Pause> pauses, List<ClusterObserver.Grant> grants) {
        List<Pause> sorted = new ArrayList<>(pauses);
        sorted.sort(Comparator.comparingLong(Pause::start));
        int overlaps = 0;
        int ungranted = 0;
        int last = 0;
        for (int i = 0; i < sorted.size(); i++) {
            Pause later = sorted.get(i);
            for (int j = 0; j < i; j++) {
                Pause earlier = sorted.get(j);
                if (!earlier.node().equals(later.node()) && earlier.end() > later.start()) {
                    overlaps++;
                    boolean planned = grants != null && granted(earlier, grants) && granted(later, grants);
                    if (grants != null && !planned) {
                        ungranted++;
                    }
                    if (!planned) {
                        last = i + 1;
                    }
                }
            }
        }
        return new PauseOverlaps(sorted.size(), overlaps, ungranted, last);
    }

    private static boolean granted(Pause p, List<ClusterObserver.Grant> grants) {
        for (ClusterObserver.Grant g : grants) {
            if (g.node().equals(p.node()) && g.start() - GRANT_SLACK_MS <= p.start()
                && p.end() - GRANT_SLACK_MS <= g.end()) { // an open grant ends at Long.MAX_VALUE: no sum
                return true;
            }
        }
        return false;
    }

    /**
     * @return e.g. {@code overlaps 3 (1 not granted, the last at pause 12 of 60)}, {@code overlaps 2 (0 not granted)},
     *     or {@code no overlap in 60 pauses}
     */
    public String cell(boolean withGrants) {
        if (overlaps == 0) {
            return "no overlap in " + pauses + " pauses";
        }
        String last = lastOverlapAt == 0 ? "" : String.format(Locale.ROOT, "the last at pause %d of %d", lastOverlapAt,
            pauses);
        if (!withGrants) {
            return "overlaps " + overlaps + ", " + last;
        }
        return "overlaps " + overlaps + " (" + ungranted + " not granted" + (last.isEmpty() ? "" : ", " + last) + ")";
    }
}
