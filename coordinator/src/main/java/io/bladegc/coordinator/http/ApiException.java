package io.bladegc.coordinator.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Map;

/**
 * A request the coordinator answers with an error: the HTTP status, a short code for the JSON {@code status} field,
 * a message that names the problem, and extra response headers (e.g. {@code Allow}).
 */
public final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient HttpResponseStatus status;
    private final String code;
    private final transient Map<String, String> headers;

    public ApiException(HttpResponseStatus status, String code, String message) {
        this(status, code, message, Map.of());
    }

    public ApiException(HttpResponseStatus status, String code, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.headers = Map.copyOf(headers);
    }

    /** 400 with code {@code BAD_REQUEST}. */
    public static ApiException badRequest(String message) {
        return new ApiException(HttpResponseStatus.BAD_REQUEST, "BAD_REQUEST", message);
    }

    public HttpResponseStatus status() {
        return status;
    }

    public String code() {
        return code;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
