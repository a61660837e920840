package io.bladegc.benchmarks.load;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Pattern;

/** How a response's {@code Retry-After} looked: only 503s are judged, and only one non-negative integer is valid. */
enum RetryAfter {
    NOT_APPLICABLE, VALID, MISSING, INVALID;

    private static final Pattern DELAY_SECONDS = Pattern.compile("[0-9]+");

    /**
     * @param response a response
     * @return {@link #NOT_APPLICABLE} for any status but 503; otherwise whether its {@code Retry-After} is one
     *     delay-seconds value (RFC 9110), missing, or something else
     */
    static RetryAfter of(HttpResponse<?> response) {
        if (response.statusCode() != 503) {
            return NOT_APPLICABLE;
        }
        List<String> values = response.headers().allValues("Retry-After");
        if (values.isEmpty()) {
            return MISSING;
        }
        return values.size() == 1 && DELAY_SECONDS.matcher(values.get(0).trim()).matches() ? VALID : INVALID;
    }
}
