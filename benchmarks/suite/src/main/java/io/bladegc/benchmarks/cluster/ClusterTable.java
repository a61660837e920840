package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.demo.DemoTable;
import io.bladegc.benchmarks.load.SideBySideTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The cluster demo's arms side by side: the client's latency and counts ({@link
 * io.bladegc.benchmarks.load.LoadResult#rows()}), what HAProxy retried, and per backend the GC pauses of the
 * measured window (from the backend's own GC notifications) and, with Blade, the node's forced and escaped
 * collections; with Blade, how many nodes held a slot at once (the coordinator's events); last the machine's load
 * average, which shows whether anything else competed for the cores. Stateless.
 */
public final class ClusterTable {
    private ClusterTable() {
    }

    /** @return the table, one column per arm, in the order given */
    public static String format(List<ClusterArm.Result> arms) {
        Map<String, Map<String, String>> columns = new LinkedHashMap<>();
        for (ClusterArm.Result arm : arms) {
            columns.put(arm.title(), rows(arm));
        }
        return SideBySideTable.format(columns);
    }

    static Map<String, String> rows(ClusterArm.Result arm) {
        Map<String, String> rows = new LinkedHashMap<>(arm.load().rows());
        rows.put("503s seen by client", Long.toString(arm.load().shed()));
        Map<String, Long> before = arm.haproxyStart().getOrDefault("BACKEND", Map.of());
        Map<String, Long> after = arm.haproxyEnd().getOrDefault("BACKEND", Map.of());
        rows.put("HAProxy retries, redispatches", delta(before, after, "wretr") + ", "
            + delta(before, after, "wredis"));
        long serverFiveXx = 0;
        for (String server : arm.haproxyEnd().keySet()) {
            if (!server.equals("BACKEND")) {
                serverFiveXx += delta(arm.haproxyStart().getOrDefault(server, Map.of()),
                    arm.haproxyEnd().get(server), "hrsp_5xx");
            }
        }
        rows.put("5xx from backends (retried)", Long.toString(serverFiveXx));
        long pauses = 0;
        long maxMs = 0;
        for (ClusterArm.NodeWindow n : arm.nodes()) {
            long count = 0;
            long max = 0;
            for (JsonNode e : n.end().path("gcPauses")) {
                if (DemoTable.isPause(e)) {
                    count++;
                    max = Math.max(max, e.path("durationMs").asLong());
                }
            }
            pauses += count;
            maxMs = Math.max(maxMs, max);
            rows.put(n.node() + " GC pauses (max ms)", count + " (" + max + ")");
            rows.put(n.node() + " forced / escaped", n.end().path("node").path("Forced").isNumber()
                ? n.counterDelta("Forced") + " / " + n.counterDelta("Escaped") : "-");
        }
        rows.put("GC pauses, all nodes (max ms)", pauses + " (" + maxMs + ")");
        ClusterObserver o = arm.observer();
        if (o != null) {
            List<ClusterObserver.Grant> grants = o.grants();
            rows.put("most slots held at once", ClusterObserver.maxConcurrent(grants) + " (polls: "
                + o.maxCollecting() + ")");
            rows.put("slot grants, expired", grants.size() + ", " + o.count("EXPIRED"));
            rows.put("grants beyond K (node due), in the window", Long.toString(o.dueGrants(arm.windowStart())));
            rows.put("slot demand at the end (infeasible polls)", String.format(Locale.ROOT, "%.2f (%d)",
                o.lastSlotDemand(), o.infeasiblePolls(arm.windowStart())));
        } else {
            rows.put("most slots held at once", "-");
            rows.put("slot grants, expired", "-");
            rows.put("grants beyond K (node due), in the window", "-");
            rows.put("slot demand at the end (infeasible polls)", "-");
        }
        rows.put("load average (1 min), start / end", String.format(Locale.ROOT, "%.1f / %.1f", arm.loadAverage()[0],
            arm.loadAverage()[1]));
        return rows;
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String key) {
        return after.getOrDefault(key, 0L) - before.getOrDefault(key, 0L);
    }
}
