package io.bladegc.benchmarks.suite.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.benchmarks.demo.DemoTable;
import java.util.List;

/**
 * One repetition of one {@code grpc-cluster} arm, reduced to what its table shows. Immutable (the load's histogram is
 * its own copy).
 *
 * @param arm         the arm's name
 * @param rep         the repetition, from 1
 * @param load        the client's view of the measured window
 * @param collections collections of all backends in the window (their own GC notifications, pauses only)
 * @param forced      of those, Blade's forced ones (the agents' {@code Forced}); -1 without the agent
 * @param shed        calls the backends answered {@code UNAVAILABLE} to shed them (the client retried them)
 */
record GrpcRep(String arm, int rep, GrpcOpenLoop.Result load, long collections, long forced, long shed) {

    /**
     * @param arm   the arm's name
     * @param rep   the repetition
     * @param load  the client's view of the window
     * @param start every backend's {@code /stats} at the window's start, just after {@code /stats/reset}
     * @param end   every backend's {@code /stats} at its end, in the same order
     * @return the reduced result
     */
    static GrpcRep of(String arm, int rep, GrpcOpenLoop.Result load, List<JsonNode> start, List<JsonNode> end) {
        if (start.size() != end.size()) {
            throw new IllegalArgumentException("stats of " + start.size() + " backends at the start, " + end.size()
                + " at the end");
        }
        long collections = 0;
        long forced = 0;
        boolean counted = false;
        long shed = 0;
        for (int i = 0; i < end.size(); i++) {
            for (JsonNode e : end.get(i).path("gcPauses")) {
                if (DemoTable.isPause(e)) {
                    collections++;
                }
            }
            JsonNode node = end.get(i).path("node");
            if (node.path("Forced").isNumber()) {
                counted = true;
                forced += node.path("Forced").asLong() - start.get(i).path("node").path("Forced").asLong();
            }
            shed += end.get(i).path("shed").asLong() - start.get(i).path("shed").asLong();
        }
        return new GrpcRep(arm, rep, load, collections, counted ? forced : -1, shed);
    }
}
