package io.bladegc.benchmarks.raftkv;

import java.util.Objects;

/**
 * One client operation on a key-value store, as recorded in a history for {@link LinearizabilityChecker}.
 *
 * <p>Times are client-side: {@code invokedNanos} is taken just before the request is sent and
 * {@code returnedNanos} just after the response arrives, on one clock shared by all clients (e.g.
 * {@link System#nanoTime()} in one JVM). Operation {@code a} precedes {@code b} in real time only when
 * {@code a.returnedNanos() < b.invokedNanos()}; equal times count as overlapping.
 *
 * @param client        id of the client that issued the operation (for explanations only)
 * @param kind          what the operation does
 * @param key           the key it touches
 * @param value         for {@link Kind#PUT} the value written (never null); for {@link Kind#GET} the value
 *                      read, {@code null} meaning the key was absent; for {@link Kind#DELETE} always null
 * @param invokedNanos  when the client sent the request
 * @param returnedNanos when the client got the response, or {@link #NEVER_RETURNED} if it never did: the
 *                      outcome is then unknown and the operation may have taken effect at any instant after
 *                      its invocation, or not at all
 * @param failed        the operation is known to have failed, so it did not take effect (a failed GET observed
 *                      nothing); the checker ignores it. Only an operation that returned can be known to fail
 */
public record KvOperation(
        int client, Kind kind, String key, String value, long invokedNanos, long returnedNanos, boolean failed) {

    /** {@code returnedNanos} of an operation whose response never arrived (timeout, crash, partition). */
    public static final long NEVER_RETURNED = Long.MAX_VALUE;

    /** What an operation does to its key. */
    public enum Kind {
        /** Writes {@code value}. */
        PUT,
        /** Reads the key; {@code value} is what was read, null if absent. */
        GET,
        /** Removes the key. */
        DELETE
    }

    /**
     * Validates the fields.
     *
     * @throws IllegalArgumentException if the values do not fit the kind, the operation returned before it was
     *                                  invoked, or a never-returned operation is marked failed
     */
    public KvOperation {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        if (kind == Kind.PUT && value == null) {
            throw new IllegalArgumentException("a PUT must write a non-null value");
        }
        if (kind == Kind.DELETE && value != null) {
            throw new IllegalArgumentException("a DELETE carries no value");
        }
        if (returnedNanos < invokedNanos) {
            throw new IllegalArgumentException("returned (" + returnedNanos + ") before invoked (" + invokedNanos + ")");
        }
        if (failed && returnedNanos == NEVER_RETURNED) {
            throw new IllegalArgumentException("an operation that never returned cannot be known to have failed");
        }
    }

    /** A successful (or, with {@code returned == NEVER_RETURNED}, unanswered) PUT of {@code value}. */
    public static KvOperation put(int client, String key, String value, long invoked, long returned) {
        return new KvOperation(client, Kind.PUT, key, value, invoked, returned, false);
    }

    /** A GET that read {@code value} ({@code null}: absent). */
    public static KvOperation get(int client, String key, String value, long invoked, long returned) {
        return new KvOperation(client, Kind.GET, key, value, invoked, returned, false);
    }

    /** A successful (or, with {@code returned == NEVER_RETURNED}, unanswered) DELETE. */
    public static KvOperation delete(int client, String key, long invoked, long returned) {
        return new KvOperation(client, Kind.DELETE, key, null, invoked, returned, false);
    }

    /** This operation, marked as known to have failed. */
    public KvOperation asFailed() {
        return new KvOperation(client, kind, key, value, invokedNanos, returnedNanos, true);
    }

    /** Whether the response never arrived, so the outcome is unknown. */
    public boolean pending() {
        return returnedNanos == NEVER_RETURNED;
    }

    /** For example {@code client 2 GET(k) -> "v" [100..250]} or {@code client 1 PUT(k, "v") [5..never]}. */
    @Override
    public String toString() {
        String what = switch (kind) {
            case PUT -> "PUT(" + key + ", \"" + value + "\")";
            case GET -> "GET(" + key + ") -> " + (value == null ? "absent" : "\"" + value + "\"");
            case DELETE -> "DELETE(" + key + ")";
        };
        String end = pending() ? "never" : Long.toString(returnedNanos);
        return "client " + client + " " + what + " [" + invokedNanos + ".." + end + "]" + (failed ? " failed" : "");
    }
}
