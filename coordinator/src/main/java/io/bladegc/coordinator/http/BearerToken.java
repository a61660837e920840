package io.bladegc.coordinator.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The shared secret that mutating calls carry as {@code Authorization: Bearer <token>}. Compares in constant time
 * (SHA-256 digests of equal length through {@link MessageDigest#isEqual}), so neither the content nor the length of
 * the token leaks through timing. Immutable, thread-safe.
 */
public final class BearerToken {
    private static final BearerToken NONE = new BearerToken(null);

    private final byte[] digest;

    private BearerToken(byte[] digest) {
        this.digest = digest;
    }

    /** @return a token that every request satisfies (no token configured) */
    public static BearerToken none() {
        return NONE;
    }

    /**
     * @param token the secret; {@code null} or empty for none
     * @return the token
     */
    public static BearerToken of(String token) {
        return token == null || token.isEmpty() ? NONE : new BearerToken(sha256(token));
    }

    /** @return whether a token is configured */
    public boolean required() {
        return digest != null;
    }

    /**
     * @param authorization the request's {@code Authorization} header, may be {@code null}
     * @return whether it carries this token (always {@code true} when none is configured)
     */
    public boolean accepts(String authorization) {
        if (digest == null) {
            return true;
        }
        if (authorization == null || authorization.length() < 7
            || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        return MessageDigest.isEqual(digest, sha256(authorization.substring(7).trim()));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return digest == null ? "no token" : "token set";
    }
}
