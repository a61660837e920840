package io.bladegc.benchmarks.suite.raftkv;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What every leadership hand-off of the {@code raft-kv} scenario cost the clients: for each, the requests due from its
 * start until {@value #AFTER_MILLIS} ms after its end (those it could hold up: sent while it ran, and in the second
 * after it), their worst latency and how many failed, timed out or waited out an attempt timeout; and the goal per
 * hand-off: none of those requests timed out or failed, and none took more than {@value #LIMIT_TIMES_DURATION} times
 * the hand-off's own duration. Stateless.
 */
final class RaftKvHandoffs {
    /** The stretch after a hand-off's end whose requests are its. */
    static final long AFTER_MILLIS = 1000;
    /** The worst latency a hand-off's requests may see, in multiples of its duration. */
    static final double LIMIT_TIMES_DURATION = 2;

    /**
     * One hand-off and what its requests saw.
     *
     * @param handoff the hand-off
     * @param stretch what the requests due from its start to {@value #AFTER_MILLIS} ms after its end saw
     */
    record Row(RaftKvLeadership.Handoff handoff, RaftKvRequests.Stretch stretch) {
        /** @return whether the goal applies: the hand-off completed and requests were due around it */
        boolean judged() {
            return handoff.completed() && stretch.requests() > 0;
        }

        /** @return whether the goal was met ({@link #judged} only) */
        boolean met() {
            return judged() && why().isEmpty();
        }

        /** @return "met", "not met: ..." or "-" when the goal does not apply */
        String verdict() {
            if (!judged()) {
                return "-";
            }
            String why = why();
            return why.isEmpty() ? "met" : "not met: " + why;
        }

        private String why() {
            List<String> why = new ArrayList<>();
            if (stretch.timedOut() > 0 || stretch.attemptTimeouts() > 0) {
                why.add("timeouts");
            }
            if (stretch.failed() > 0) {
                why.add("failed calls");
            }
            if (stretch.worstMicros() > LIMIT_TIMES_DURATION * handoff.durationMillis() * 1000) {
                why.add(String.format(Locale.ROOT, "%.1f x its duration", stretch.worstMicros() / 1000.0
                    / handoff.durationMillis()));
            }
            return String.join(", ", why);
        }
    }

    private RaftKvHandoffs() {
    }

    /** @return each hand-off with what the requests due from its start to {@value #AFTER_MILLIS} ms after it saw */
    static List<Row> rows(List<RaftKvLeadership.Handoff> handoffs, RaftKvRequests requests) {
        return handoffs.stream().map(h -> new Row(h, requests.between(h.startEpochMillis(),
            h.endEpochMillis() + AFTER_MILLIS))).toList();
    }

    /**
     * @return what clients felt of each completed hand-off with requests due around it, in every measured
     *     repetition: the worst latency of those requests, ms, sorted
     */
    static double[] worstMillis(List<RaftKvRep> reps) {
        return reps.stream().flatMap(r -> r.handoffRows().stream()).filter(Row::judged)
            .mapToDouble(row -> row.stretch().worstMicros() / 1000.0).sorted().toArray();
    }

    /** @return one markdown row per hand-off of every repetition, or a line saying there was none */
    static String markdown(List<RaftKvRep> reps) {
        List<String> lines = new ArrayList<>();
        for (RaftKvRep r : reps) {
            for (Row row : r.handoffRows()) {
                RaftKvLeadership.Handoff h = row.handoff();
                RaftKvRequests.Stretch s = row.stretch();
                lines.add(String.format(Locale.ROOT, "| %s | %d | %.1f | %s -> %s | %.1f | %s | %d | %s | %d / %d / %d"
                        + " | %s |%n", r.arm(), r.rep(), (h.startEpochMillis() - r.load().requests().startEpochMillis())
                        / 1000.0, h.from(), h.completed() ? h.to() : "(not handed off)", h.durationMillis(),
                    h.electedMillis() < 0 ? "-" : Long.toString(h.electedMillis()), s.requests(),
                    s.worstMicros() < 0 ? "-" : String.format(Locale.ROOT, "%.1f", s.worstMicros() / 1000.0),
                    s.failed(), s.timedOut(), s.attemptTimeouts(), row.verdict()));
            }
        }
        if (lines.isEmpty()) {
            return "No leadership hand-off started in any measured window.\n";
        }
        return "| hand-off: arm | rep | at (s into the window) | from -> to | its duration (ms, Blade) | a leader"
            + " elected after (ms, Ratis) | requests due from its start to " + AFTER_MILLIS + " ms after its end"
            + " | their worst latency (ms) | failed / timed out / attempt timeouts | goal: no timeout or failure,"
            + " worst <= " + String.format(Locale.ROOT, "%.0f", LIMIT_TIMES_DURATION) + " x its duration |\n"
            + "|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n" + String.join("", lines);
    }
}
