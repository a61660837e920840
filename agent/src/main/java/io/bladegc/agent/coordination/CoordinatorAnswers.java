package io.bladegc.agent.coordination;

import com.fasterxml.jackson.jr.ob.JSON;
import io.bladegc.agent.coordination.CoordinatorException.Kind;
import io.bladegc.api.grant.SlotAnswer;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * What a coordinator replica answered, decoded for {@link CoordinatorClient}: a 2xx body into the answer the caller
 * wants, and every failure (transport, HTTP status, malformed body) into a {@link CoordinatorException} of the right
 * {@link Kind}, with a one-line message. Stateless and thread-safe.
 */
final class CoordinatorAnswers {
    private static final int MAX_MESSAGE = 200;

    private CoordinatorAnswers() {
    }

    /** A 2xx answer, its body undecoded until asked for, and when its attempt was sent. */
    record Reply(String op, int status, String body, long sentNanos) {
        Map<String, Object> json() throws CoordinatorException {
            try {
                Map<String, Object> m = JSON.std.mapFrom(body);
                if (m == null) {
                    throw new IOException("empty body");
                }
                return m;
            } catch (IOException | RuntimeException e) {
                throw new CoordinatorException(Kind.BAD_ANSWER, status, op + ": the answer is not the JSON object "
                    + "expected: " + oneLine(e.getMessage()));
            }
        }
    }

    /**
     * @return whether a heartbeat's answer invites the node to collect now ({@code "invited": true}); an answer without
     *     a JSON object (an older or a foreign coordinator) invites nothing: its 2xx status already said the node is a
     *     member
     */
    static boolean invited(Reply r) {
        try {
            return Boolean.TRUE.equals(r.json().get("invited"));
        } catch (CoordinatorException e) {
            return false;
        }
    }

    static SlotAnswer acquireAnswer(Reply r) throws CoordinatorException {
        long sentNanos = r.sentNanos();
        long receivedNanos = System.nanoTime();
        long receivedWall = System.currentTimeMillis();
        Map<String, Object> m = r.json();
        Object status = m.get("status");
        if ("GRANTED".equals(status)) {
            long epoch = number(m, "epoch", true);
            long end;
            if (m.get("remainingMillis") != null) {
                end = sentNanos + millisToNanos(number(m, "remainingMillis", true));
            } else if (m.get("now") != null) {
                end = sentNanos + millisToNanos(number(m, "deadline", true) - number(m, "now", true));
            } else {
                end = receivedNanos + millisToNanos(number(m, "deadline", true) - receivedWall);
            }
            return SlotAnswer.granted(epoch, end, Boolean.TRUE.equals(m.get("full")));
        }
        if ("QUEUED".equals(status)) {
            long position = m.get("position") == null ? 0 : number(m, "position", false);
            return SlotAnswer.queued((int) Math.max(0, Math.min(Integer.MAX_VALUE, position)));
        }
        if ("CANCELLED".equals(status)) {
            return SlotAnswer.cancelled();
        }
        if ("UNSCHEDULED".equals(status)) {
            return SlotAnswer.unscheduled();
        }
        throw new CoordinatorException(Kind.BAD_ANSWER, r.status(), "acquire: unexpected status "
            + oneLine(String.valueOf(status)) + " (expected GRANTED, QUEUED, CANCELLED or UNSCHEDULED)");
    }

    private static long number(Map<String, Object> m, String field, boolean required) throws CoordinatorException {
        Object v = m.get(field);
        if (v instanceof Number n && (v instanceof Integer || v instanceof Long || v instanceof java.math.BigInteger)) {
            return n.longValue();
        }
        if (v == null && !required) {
            return 0;
        }
        throw new CoordinatorException(Kind.BAD_ANSWER, 200, "acquire: field '" + field + "' is "
            + (v == null ? "missing" : "not an integer: " + oneLine(String.valueOf(v))));
    }

    private static long millisToNanos(long millis) {
        long bound = Long.MAX_VALUE / 4 / 1_000_000L; // an absurd deadline must not overflow the nanoTime arithmetic
        return Math.max(-bound, Math.min(bound, millis)) * 1_000_000L;
    }

    static CoordinatorException transportFailure(String op, Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof CoordinatorException ce) {
                return ce;
            }
        }
        return new CoordinatorException(Kind.UNREACHABLE, -1, op + ": " + describe(t));
    }

    /**
     * Names a failure status. The JSON {@code status} tells apart what one HTTP status covers: 404
     * {@code UNKNOWN_NODE} (join again) from {@code NOT_FOUND} (no such endpoint: a wrong coordinator URL), 409
     * {@code STALE_EPOCH} from {@code REJECTED} (e.g. an acquire while the node still holds a grant), 503
     * {@code NOT_LEADER} (a replica that is not the leader: {@code error}, or {@code status}, says so) from any other
     * 503 ({@code UNAVAILABLE}: shutting down, or the member limit).
     */
    static CoordinatorException statusFailure(String op, int status, String body) {
        Map<String, Object> json = jsonOrNull(body);
        Object named = json == null ? null : json.get("status");
        if (status == 503 && json != null && ("NOT_LEADER".equals(json.get("error")) || "NOT_LEADER".equals(named))) {
            return new CoordinatorException(Kind.NOT_LEADER, status, op + ": HTTP 503" + errorText(json, body));
        }
        Kind kind = switch (status) {
            case 404 -> "NOT_FOUND".equals(named) ? Kind.BAD_ANSWER : Kind.UNKNOWN_NODE;
            case 409 -> "REJECTED".equals(named) ? Kind.REJECTED : Kind.STALE_EPOCH;
            case 400 -> Kind.REJECTED;
            case 401, 403 -> Kind.UNAUTHORIZED;
            default -> Kind.BAD_ANSWER;
        };
        return new CoordinatorException(kind, status, op + ": HTTP " + status + errorText(json, body));
    }

    private static Map<String, Object> jsonOrNull(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return JSON.std.mapFrom(body);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** @return {@code ": <message>"} from a JSON error body ({@code message} or {@code error}), or the raw text */
    private static String errorText(Map<String, Object> json, String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        for (String key : new String[] {"message", "error"}) {
            if (json != null && json.get(key) != null) {
                return ": " + oneLine(String.valueOf(json.get(key)));
            }
        }
        return ": " + oneLine(body);
    }

    /** @return a short phrase for a failure: {@code unreachable: Connection refused}, {@code timeout: ...} */
    static String reason(CoordinatorException e) {
        return e.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": " + e.getMessage();
    }

    static String describe(Throwable t) {
        String m = t.getMessage();
        String name = t.getClass().getSimpleName();
        return m == null || m.isBlank() ? name : name + ": " + oneLine(m);
    }

    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String line = s.replaceAll("[\\p{Cntrl}\\s]+", " ").trim();
        return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE) + "...";
    }

    /** @return the {@link CoordinatorException} behind a failed call's exception */
    static CoordinatorException unwrap(Throwable e) {
        return transportFailure("call", e);
    }
}
