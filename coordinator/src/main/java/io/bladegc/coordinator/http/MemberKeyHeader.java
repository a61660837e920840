package io.bladegc.coordinator.http;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code Blade-Member-Key} request header: the secret a node presents with every node call to prove it is the
 * process that joined as that node (see {@code coordinator/API.md}, "Member keys"). Stateless.
 */
public final class MemberKeyHeader {
    /** The header's name. */
    public static final String NAME = "Blade-Member-Key";
    /** What a member key looks like: 16 to 128 characters of the base64url alphabet. */
    public static final Pattern FORMAT = Pattern.compile("[A-Za-z0-9_-]{16,128}");

    private MemberKeyHeader() {
    }

    /**
     * @param headers a request's headers
     * @return the member key they carry, or {@code null} when none
     * @throws ApiException 400 when the header is there more than once or is not a key
     */
    public static String read(HttpHeaders headers) throws ApiException {
        List<String> values = headers.getAll(NAME);
        if (values.isEmpty()) {
            return null;
        }
        if (values.size() > 1 || !FORMAT.matcher(values.get(0).trim()).matches()) {
            throw ApiException.badRequest("header '" + NAME + "' must appear once and hold 16 to 128 characters from "
                + "A-Z a-z 0-9 _ -");
        }
        return values.get(0).trim();
    }
}
