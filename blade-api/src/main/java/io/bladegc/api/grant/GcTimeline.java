package io.bladegc.api.grant;

import io.bladegc.api.GcOutcome;
import io.bladegc.api.GcRequest;
import java.util.Locale;

/**
 * One GC event's timeline under a {@link GrantHolder}, as in BLADE's Fig. 3, and its log line: the same line for the
 * HTTP cluster and for Raft peers. Durations in nanoseconds; a negative one did not happen. Immutable.
 *
 * @param label         who logs, before {@code GC #}: empty for the agent's one node per JVM, {@code raft n1 } for a
 *                      Raft peer (its id, so that the peers' logs read side by side tell who collected)
 * @param request       the upcall
 * @param path          what happened, e.g. {@code granted (epoch 7)}, {@code fail-open (coordinator unreachable)},
 *                      {@code cancelled (the JVM collected on its own while queued)}
 * @param prepared      what was done under the grant before the drain (a Raft leader's hand-off, or its choice to
 *                      collect in place), or {@link Prepared#NOTHING}
 * @param scheduleNanos T_schedule: from the upcall until the grant (or the decision not to wait for one)
 * @param trailersNanos T_trailers: from closing the gate until no request was in flight
 * @param gcNanos       T_gc: from then until the collection was confirmed
 * @param notifyNanos   T_notify: from the end of the collection until the ledger acknowledged the release
 * @param outcome       what the collection did, or {@code null} when there was none
 * @param note          the end of the line, e.g. {@code released}, or empty
 */
record GcTimeline(String label, GcRequest request, String path, Prepared prepared, long scheduleNanos, long trailersNanos,
                  long gcNanos, long notifyNanos, GcOutcome outcome, String note) {

    /**
     * @return the log line, e.g. {@code Blade GC #12 YOUNG granted (epoch 7): T_schedule 1.2 ms, T_trailers 0.3 ms,
     *     T_gc 6.1 ms (COLLECTED), T_notify 0.4 ms; released}; a hand-off adds {@code T_handoff 40.1 ms (...)} after
     *     T_schedule, a leader's choice to collect in place {@code in place (...)}
     */
    String line() {
        String prepare = switch (prepared.kind()) {
            case NOTHING -> "";
            case IN_PLACE -> "in place (" + prepared.note() + "), ";
            case HANDED_OFF, FAILED -> "T_handoff " + ms(prepared.nanos()) + " (" + prepared.note() + "), ";
        };
        return "Blade " + label + "GC #" + request.id() + " " + request.generation() + " " + path + ": T_schedule "
            + ms(scheduleNanos) + ", " + prepare + "T_trailers " + ms(trailersNanos) + ", T_gc " + ms(gcNanos)
            + (outcome == null ? "" : " (" + outcome + ")") + ", T_notify " + ms(notifyNanos)
            + (note == null || note.isEmpty() ? "" : "; " + note);
    }

    static String ms(long nanos) {
        return nanos < 0 ? "-" : String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
