package io.bladegc.benchmarks.suite.harness;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.cluster.ClusterArm;
import io.bladegc.benchmarks.demo.DemoTable;
import io.bladegc.benchmarks.load.LoadResult;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one arm measured in one repetition, reduced to what {@link SuiteTable} reports. Immutable apart from the
 * histogram, which nobody changes after construction.
 *
 * @param arm            the arm's name
 * @param rep            the repetition, from 1
 * @param ok             the client's 2xx latencies, microseconds
 * @param achievedRate   requests per second the client issued in the measured window
 * @param sent           requests sent in the measured window
 * @param shed           503s the client saw
 * @param clientErrors   other statuses, I/O errors, timeouts and unfinished requests at the client
 * @param retries        HAProxy's retries (backend {@code wretr}) in the window, -1 without a balancer
 * @param cpuSeconds     CPU seconds of all backends together in the window
 * @param peakRssKib     the largest backend's peak resident memory, KiB
 * @param forced         Blade's forced collections on all backends in the window, -1 without Blade's counters
 * @param escaped        Blade's escaped collections likewise
 * @param full           full collections on all backends in the window (the servers' own GC notifications)
 * @param forcedFull     of Blade's forced collections, the full ones; -1 without Blade's counters
 */
public record RepResult(String arm, int rep, Histogram ok, double achievedRate, long sent, long shed,
                        long clientErrors, long retries, double cpuSeconds, long peakRssKib, long forced,
                        long escaped, long full, long forcedFull) {

    /**
     * @param arm        the arm's name
     * @param rep        the repetition
     * @param r          what {@link ClusterArm#run} returned
     * @param cpuSeconds CPU seconds of the backends in the window
     * @param peakRssKib the largest backend's peak RSS
     * @return the reduced result
     */
    public static RepResult of(String arm, int rep, ClusterArm.Result r, double cpuSeconds, long peakRssKib) {
        Map<String, Long> before = r.haproxyStart().getOrDefault("BACKEND", Map.of());
        Map<String, Long> after = r.haproxyEnd().getOrDefault("BACKEND", Map.of());
        long retries = after.getOrDefault("wretr", 0L) - before.getOrDefault("wretr", 0L);
        return of(arm, rep, r.load(), r.nodes(), retries, cpuSeconds, peakRssKib);
    }

    /**
     * @param arm        the arm's name
     * @param rep        the repetition
     * @param load       the client's view of the measured window
     * @param nodes      each server's {@code /stats} at the window's start and end (Blade's counters)
     * @param retries    the balancer's retries in the window, -1 without a balancer
     * @param cpuSeconds CPU seconds of the servers in the window
     * @param peakRssKib the largest server's peak RSS
     * @return the reduced result
     */
    public static RepResult of(String arm, int rep, LoadResult load, List<ClusterArm.NodeWindow> nodes, long retries,
                               double cpuSeconds, long peakRssKib) {
        long errors = load.otherStatus() + load.ioErrors() + load.timeouts() + load.unfinished();
        long forced = 0;
        long escaped = 0;
        long full = 0;
        long forcedFull = 0;
        boolean counted = false;
        for (ClusterArm.NodeWindow n : nodes) {
            JsonNode start = n.start().path("node");
            JsonNode end = n.end().path("node");
            if (end.path("Forced").isNumber()) {
                counted = true;
                forced += end.path("Forced").asLong() - start.path("Forced").asLong();
                escaped += end.path("Escaped").asLong() - start.path("Escaped").asLong();
                forcedFull += end.path("ForcedFull").asLong() - start.path("ForcedFull").asLong();
            }
            for (JsonNode e : n.end().path("gcPauses")) {
                if (DemoTable.isPause(e) && e.path("action").asText().contains("major")) {
                    full++;
                }
            }
        }
        return new RepResult(arm, rep, load.okLatency(), load.achievedRate(), load.sent(), load.shed(), errors,
            retries, cpuSeconds, peakRssKib, counted ? forced : -1, counted ? escaped : -1, full,
            counted ? forcedFull : -1);
    }
}
