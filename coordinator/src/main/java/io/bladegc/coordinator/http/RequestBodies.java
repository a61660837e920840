package io.bladegc.coordinator.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.api.slot.Ask;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads and checks the JSON bodies of the node endpoints. Every problem is an {@link ApiException} (400) whose message
 * names it: malformed JSON (with line and column), a body that is not an object, a missing field, a field that is not
 * an integer, or one out of its range. Fields the coordinator does not know are ignored, so newer nodes can talk to
 * older coordinators. Stateless, thread-safe.
 */
public final class RequestBodies {
    /** The largest {@code leadMillis} taken: one day. */
    public static final long MAX_LEAD_MILLIS = 86_400_000L;
    /** The largest {@code pauseMillis} taken: one hour. */
    public static final long MAX_PAUSE_MILLIS = 3_600_000L;

    /** {@code POST /v1/nodes/{id}/acquire}. */
    public record Acquire(Ask ask, long waitMillis) {
    }

    /** {@code POST /v1/nodes/{id}/heartbeat}: each -1 when absent. */
    public record Heartbeat(long dueInMillis, long fullDueInMillis) {
    }

    /** {@code POST /v1/nodes/{id}/release}. */
    public record Release(long epoch, long pauseMillis) {
    }

    private RequestBodies() {
    }

    /**
     * {@code {"gcId": 1.., "leadMillis": 0..1 day, "full": true or false (default false), "holdMillis": 0..1 hour
     * (default 0, unknown), "fullPauseMillis": 0..1 hour (default 0), "waitMillis": 0..maxWaitMillis (default 0)}}:
     * {@code full} and {@code holdMillis} say which collection the node asks for and how long it expects to hold the
     * slot, {@code fullPauseMillis} the full collection it offers in place of a young one ({@link Ask}).
     */
    public static Acquire acquire(ByteBuf body, long maxWaitMillis) throws ApiException {
        JsonNode o = object(body, true);
        return new Acquire(new Ask(integer(o, "gcId", 1, Long.MAX_VALUE, null),
            integer(o, "leadMillis", 0, MAX_LEAD_MILLIS, null), bool(o, "full"),
            integer(o, "holdMillis", 0, MAX_PAUSE_MILLIS, 0L),
            integer(o, "fullPauseMillis", 0, MAX_PAUSE_MILLIS, 0L)),
            integer(o, "waitMillis", 0, maxWaitMillis, 0L));
    }

    /**
     * Heartbeat: no body, or {@code {"dueInMillis": 0..1 day, "fullDueInMillis": 0..1 day}} (when the node expects its
     * JVM to collect, and to run a full collection), each optional.
     */
    public static Heartbeat heartbeat(ByteBuf body) throws ApiException {
        JsonNode o = object(body, false);
        return new Heartbeat(integer(o, "dueInMillis", 0, MAX_LEAD_MILLIS, -1L),
            integer(o, "fullDueInMillis", 0, MAX_LEAD_MILLIS, -1L));
    }

    /** {@code {"epoch": 1.., "pauseMillis": 0..1 hour (default 0)}}. */
    public static Release release(ByteBuf body) throws ApiException {
        JsonNode o = object(body, true);
        return new Release(integer(o, "epoch", 1, Long.MAX_VALUE, null),
            integer(o, "pauseMillis", 0, MAX_PAUSE_MILLIS, 0L));
    }

    /** {@code {"epoch": 1..}} (renew). */
    public static long epoch(ByteBuf body) throws ApiException {
        return integer(object(body, true), "epoch", 1, Long.MAX_VALUE, null);
    }

    /** {@code {"gcId": 1..}} (cancel). */
    public static long gcId(ByteBuf body) throws ApiException {
        return integer(object(body, true), "gcId", 1, Long.MAX_VALUE, null);
    }

    /** Join, leave: no body, or a JSON object whose fields are ignored. */
    public static void none(ByteBuf body) throws ApiException {
        object(body, false);
    }

    private static JsonNode object(ByteBuf body, boolean required) throws ApiException {
        if (!body.isReadable()) {
            if (required) {
                throw ApiException.badRequest("missing JSON body: expected an object");
            }
            return Json.MAPPER.createObjectNode();
        }
        JsonNode node;
        try (InputStream in = new ByteBufInputStream(body.duplicate())) {
            node = Json.MAPPER.readTree(in);
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("malformed JSON: " + Route.printable(e.getOriginalMessage())
                + (e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr()));
        } catch (IOException e) {
            throw ApiException.badRequest("unreadable body: " + Route.printable(String.valueOf(e.getMessage())));
        }
        if (node == null || node.isMissingNode()) {
            if (required) {
                throw ApiException.badRequest("missing JSON body: expected an object");
            }
            return Json.MAPPER.createObjectNode();
        }
        if (!node.isObject()) {
            throw ApiException.badRequest("expected a JSON object, got " + kind(node));
        }
        return node;
    }

    private static long integer(JsonNode o, String field, long min, long max, Long absent) throws ApiException {
        JsonNode v = o.get(field);
        if (v == null) {
            if (absent == null) {
                throw ApiException.badRequest("missing field '" + field + "'");
            }
            return absent;
        }
        if (!v.isNumber()) {
            throw ApiException.badRequest("field '" + field + "' must be an integer, got " + kind(v));
        }
        String range = "between " + min + " and " + max;
        if (!v.isIntegralNumber()) {
            throw ApiException.badRequest("field '" + field + "' must be an integer " + range + ", got "
                + Route.printable(v.asText()));
        }
        if (!v.canConvertToLong() || v.longValue() < min || v.longValue() > max) {
            throw ApiException.badRequest("field '" + field + "' must be " + range + ", got "
                + Route.printable(v.asText()));
        }
        return v.longValue();
    }

    /** @return the boolean {@code field}, {@code false} when absent */
    private static boolean bool(JsonNode o, String field) throws ApiException {
        JsonNode v = o.get(field);
        if (v == null) {
            return false;
        }
        if (!v.isBoolean()) {
            throw ApiException.badRequest("field '" + field + "' must be true or false, got " + kind(v));
        }
        return v.booleanValue();
    }

    private static String kind(JsonNode v) {
        return switch (v.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case NUMBER -> "a number";
            default -> v.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
