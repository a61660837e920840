package io.bladegc.coordinator.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where a request goes: an {@link Endpoint} and, for {@code /v1/nodes/{id}/...}, the node id as it was sent (check it
 * with {@link #validNode()}). Immutable.
 *
 * @param endpoint the endpoint
 * @param node     the raw node id from the path, or {@code ""} for endpoints without one
 */
public record Route(Endpoint endpoint, String node) {
    /** What a node id may look like. */
    public static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** The endpoints; the node endpoints mutate the ledger and take POST only, the others GET (and HEAD). */
    public enum Endpoint {
        JOIN, HEARTBEAT, LEAVE, ACQUIRE, RELEASE, RENEW, CANCEL, CLUSTER, HEALTH, METRICS;

        /** @return whether the endpoint changes state (POST) */
        public boolean mutating() {
            return ordinal() <= CANCEL.ordinal();
        }

        /** @return whether a configured token is required: the node calls and the cluster view (it names nodes) */
        public boolean needsToken() {
            return mutating() || this == CLUSTER;
        }

        /** @return the method the endpoint takes (read-only endpoints also take HEAD) */
        public HttpMethod method() {
            return mutating() ? HttpMethod.POST : HttpMethod.GET;
        }

        /** @return whether the endpoint takes {@code m} */
        public boolean allows(HttpMethod m) {
            return method().equals(m) || (!mutating() && HttpMethod.HEAD.equals(m));
        }

        /** @return the {@code Allow} header value */
        public String allowHeader() {
            return mutating() ? "POST" : "GET, HEAD";
        }

        /** @return the name used in the {@code route} tag of the request metric */
        public String metricName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * @param method the request's method
     * @param uri    the request target as sent (origin form; a query string is ignored)
     * @return the route
     * @throws ApiException 404 for an unknown path, 405 (with {@code Allow}) for a method the endpoint does not take
     */
    public static Route match(HttpMethod method, String uri) throws ApiException {
        int query = uri.indexOf('?');
        String path = query >= 0 ? uri.substring(0, query) : uri;
        Route route = byPath(path);
        if (route == null) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, "NOT_FOUND", "no such endpoint: " + printable(path)
                + " (see /v1/cluster, /health, /metrics and POST /v1/nodes/{id}/join|heartbeat|leave|acquire|release"
                + "|renew|cancel)");
        }
        if (!route.endpoint.allows(method)) {
            throw new ApiException(HttpResponseStatus.METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED",
                printable(path) + " takes " + route.endpoint.allowHeader() + " only",
                Map.of(HttpHeaderNames.ALLOW.toString(), route.endpoint.allowHeader()));
        }
        return route;
    }

    /**
     * @return the node id
     * @throws ApiException 400 when it does not match {@link #NODE_ID}
     */
    public String validNode() throws ApiException {
        if (!NODE_ID.matcher(node).matches()) {
            throw ApiException.badRequest("invalid node id '" + printable(node)
                + "': expected 1 to 64 characters from A-Z a-z 0-9 . _ -");
        }
        return node;
    }

    private static Route byPath(String path) {
        switch (path) {
            case "/health":
                return new Route(Endpoint.HEALTH, "");
            case "/metrics":
                return new Route(Endpoint.METRICS, "");
            case "/v1/cluster":
                return new Route(Endpoint.CLUSTER, "");
            default:
                break;
        }
        String prefix = "/v1/nodes/";
        if (!path.startsWith(prefix)) {
            return null;
        }
        int slash = path.indexOf('/', prefix.length());
        if (slash < 0 || path.indexOf('/', slash + 1) >= 0) {
            return null;
        }
        Endpoint endpoint = switch (path.substring(slash + 1)) {
            case "join" -> Endpoint.JOIN;
            case "heartbeat" -> Endpoint.HEARTBEAT;
            case "leave" -> Endpoint.LEAVE;
            case "acquire" -> Endpoint.ACQUIRE;
            case "release" -> Endpoint.RELEASE;
            case "renew" -> Endpoint.RENEW;
            case "cancel" -> Endpoint.CANCEL;
            default -> null;
        };
        return endpoint == null ? null : new Route(endpoint, path.substring(prefix.length(), slash));
    }

    /** At most 80 characters of {@code s}, control characters replaced, for messages that echo input. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 80) + 3);
        for (int i = 0; i < s.length() && i < 80; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return s.length() > 80 ? b.append("...").toString() : b.toString();
    }
}
