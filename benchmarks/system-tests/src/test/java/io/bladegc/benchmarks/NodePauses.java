package io.bladegc.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * A demo backend's stop-the-world pauses, from its own GC notifications ({@code GET /stats}: {@code gcPauses}), each
 * matched against the Blade node's quiet windows: computed here from the JVM's record, not taken from Blade's counts.
 * Concurrent cycles are not pauses and are left out; so are G1's concurrent-cycle remark and cleanup pauses (JDK 20+,
 * bean {@code G1 Concurrent GC}), which Blade does not schedule (counted by {@link #concurrentPhasePauses}).
 */
final class NodePauses {
    /**
     * @param node        the node's name
     * @param bean        the collector bean
     * @param id          the collection's number at that bean
     * @param cause       the JVM's cause, e.g. {@code Allocation Failure}
     * @param major       a full collection
     * @param planned     it ran inside a quiet window: the gate closed, nothing in flight
     * @param wallStartMs wall-clock start: the notification's time stamp minus the duration
     * @param wallEndMs   wall-clock end: the notification's time stamp
     */
    record Pause(String node, String bean, long id, String cause, boolean major, boolean planned, long wallStartMs,
                 long wallEndMs) {
    }

    private NodePauses() {
    }

    /** @return the pauses in {@code stats}, oldest first */
    static List<Pause> of(String node, JsonNode stats) {
        List<String> beans = new ArrayList<>();
        stats.get("node").get("GcBeans").forEach(b -> beans.add(b.asText()));
        JsonNode windows = stats.get("node").get("QuietWindows");
        int n = beans.size();
        List<Pause> out = new ArrayList<>();
        for (JsonNode gc : stats.get("gcPauses")) {
            String bean = gc.get("gc").asText();
            if (!isPause(bean)) {
                continue;
            }
            int b = beans.indexOf(bean);
            long id = gc.get("id").asLong();
            boolean inside = false;
            // each window: n bean counts when the gate was drained, then n counts just before it opened
            for (int w = 0; b >= 0 && w + 2 * n <= windows.size() && !inside; w += 2 * n) {
                inside = windows.get(w + b).asLong() < id && id <= windows.get(w + n + b).asLong();
            }
            long end = gc.get("wallEndMs").asLong();
            out.add(new Pause(node, bean, id, gc.get("cause").asText(), gc.get("action").asText().contains("major"),
                inside, end - gc.get("durationMs").asLong(), end));
        }
        return out;
    }

    /** @return G1's concurrent-cycle pauses in {@code stats} (not judged) */
    static int concurrentPhasePauses(JsonNode stats) {
        int count = 0;
        for (JsonNode gc : stats.get("gcPauses")) {
            count += gc.get("gc").asText().equals("G1 Concurrent GC") ? 1 : 0;
        }
        return count;
    }

    /**
     * @param pauses      pauses of several nodes
     * @param toleranceMs overlaps this short or shorter do not count (the stamps have millisecond resolution)
     * @return the pairs of pauses of different nodes that overlap in wall-clock time by more than the tolerance
     */
    static List<String> overlaps(List<Pause> pauses, long toleranceMs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < pauses.size(); i++) {
            for (int j = i + 1; j < pauses.size(); j++) {
                Pause a = pauses.get(i);
                Pause b = pauses.get(j);
                long overlap = Math.min(a.wallEndMs(), b.wallEndMs()) - Math.max(a.wallStartMs(), b.wallStartMs());
                if (!a.node().equals(b.node()) && overlap > toleranceMs) {
                    out.add(a + " and " + b + " overlap by " + overlap + " ms");
                }
            }
        }
        return out;
    }

    private static boolean isPause(String bean) {
        return !bean.endsWith(" Cycles") && !bean.equals("G1 Concurrent GC");
    }
}
