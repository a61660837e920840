package io.bladegc.benchmarks.load;

import java.nio.ByteBuffer;

/**
 * An incremental HTTP/1.1 response parser for the load generator: status, {@code Retry-After}, whether the
 * connection stays open, and the body skipped by {@code Content-Length} or chunked framing. It allocates nothing
 * once built: header names and values are matched in fixed buffers (longer values are truncated, which only matters
 * for the headers it reads, all short).
 *
 * <p>Not thread-safe: one per connection, used by the event loop only.
 */
final class ResponseParser {
    private enum State { STATUS_LINE, HEADER_LINE, BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_CRLF, TRAILER, DONE }

    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] RETRY_AFTER = ascii("retry-after");
    private static final int MAX_LINE = 128;

    private final byte[] line = new byte[MAX_LINE];
    private int lineLength;
    private State state = State.STATUS_LINE;
    private int status;
    private long remaining;
    private boolean chunked;
    private boolean close;
    private int retryAfterHeaders;
    private boolean retryAfterValid;
    private String error;

    /** Forgets the last response; call before reading the next one on the same connection. */
    void reset() {
        state = State.STATUS_LINE;
        lineLength = 0;
        status = 0;
        remaining = 0;
        chunked = false;
        close = false;
        retryAfterHeaders = 0;
        retryAfterValid = false;
        error = null;
    }

    /**
     * Consumes bytes from {@code in} up to the end of one response (bytes after it stay in the buffer).
     *
     * @return {@code true} when the response is complete, {@code false} when more bytes are needed
     * @throws IllegalStateException when the response is malformed (the connection must be closed)
     */
    boolean feed(ByteBuffer in) {
        while (in.hasRemaining() && state != State.DONE) {
            switch (state) {
                case BODY, CHUNK_DATA -> skipBody(in);
                default -> {
                    if (readLine(in)) {
                        onLine();
                    }
                }
            }
        }
        if (error != null) {
            throw new IllegalStateException(error);
        }
        return state == State.DONE;
    }

    /** @return the status code of the response just parsed */
    int status() {
        return status;
    }

    /** @return whether the server will close the connection after this response */
    boolean closes() {
        return close;
    }

    /** @return how the 503's {@code Retry-After} looked ({@link RetryAfter#NOT_APPLICABLE} for other statuses) */
    RetryAfter retryAfter() {
        if (status != 503) {
            return RetryAfter.NOT_APPLICABLE;
        }
        if (retryAfterHeaders == 0) {
            return RetryAfter.MISSING;
        }
        return retryAfterHeaders == 1 && retryAfterValid ? RetryAfter.VALID : RetryAfter.INVALID;
    }

    private void skipBody(ByteBuffer in) {
        int n = (int) Math.min(remaining, in.remaining());
        in.position(in.position() + n);
        remaining -= n;
        if (remaining == 0) {
            state = state == State.BODY ? State.DONE : State.CHUNK_CRLF;
        }
    }

    /** Collects one line without its CRLF; a longer line keeps its first {@value #MAX_LINE} bytes. */
    private boolean readLine(ByteBuffer in) {
        while (in.hasRemaining()) {
            byte b = in.get();
            if (b == '\n') {
                if (lineLength > 0 && line[Math.min(lineLength, MAX_LINE) - 1] == '\r') {
                    lineLength--;
                }
                return true;
            }
            if (lineLength < MAX_LINE) {
                line[lineLength] = b;
            }
            lineLength++;
        }
        return false;
    }

    private void onLine() {
        int length = Math.min(lineLength, MAX_LINE);
        lineLength = 0;
        switch (state) {
            case STATUS_LINE -> statusLine(length);
            case HEADER_LINE -> {
                if (length == 0) {
                    endOfHeaders();
                } else {
                    header(length);
                }
            }
            case CHUNK_SIZE -> chunkSize(length);
            case CHUNK_CRLF -> state = length == 0 ? State.CHUNK_SIZE : fail("no CRLF after a chunk");
            case TRAILER -> state = length == 0 ? State.DONE : State.TRAILER;
            default -> fail("unexpected line");
        }
    }

    private void statusLine(int length) {
        // "HTTP/1.1 200 ..."
        if (length < 12 || line[0] != 'H' || line[8] != ' ' || !digit(line[9]) || !digit(line[10])
            || !digit(line[11])) {
            fail("malformed status line");
            return;
        }
        status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
        close = line[7] == '0'; // HTTP/1.0 closes unless it says keep-alive; we never ask for it
        state = State.HEADER_LINE;
    }

    private void header(int length) {
        int colon = 0;
        while (colon < length && line[colon] != ':') {
            colon++;
        }
        if (colon == length) {
            fail("header line without a colon");
            return;
        }
        int from = colon + 1;
        while (from < length && (line[from] == ' ' || line[from] == '\t')) {
            from++;
        }
        int to = length;
        while (to > from && (line[to - 1] == ' ' || line[to - 1] == '\t')) {
            to--;
        }
        if (nameIs(CONTENT_LENGTH, colon)) {
            long v = number(from, to, 10);
            if (v < 0) {
                fail("malformed Content-Length");
            }
            remaining = v;
        } else if (nameIs(TRANSFER_ENCODING, colon)) {
            chunked = contains(from, to, "chunked");
        } else if (nameIs(CONNECTION, colon)) {
            close |= contains(from, to, "close");
        } else if (nameIs(RETRY_AFTER, colon)) {
            retryAfterHeaders++;
            retryAfterValid = to > from && number(from, to, 10) >= 0;
        }
    }

    private void endOfHeaders() {
        if (status == 204 || status == 304 || status / 100 == 1) {
            state = State.DONE;
        } else if (chunked) {
            state = State.CHUNK_SIZE;
        } else {
            state = remaining > 0 ? State.BODY : State.DONE;
        }
    }

    private void chunkSize(int length) {
        int to = 0;
        while (to < length && line[to] != ';') { // chunk extensions are ignored
            to++;
        }
        long size = number(0, to, 16);
        if (size < 0) {
            fail("malformed chunk size");
        } else if (size == 0) {
            state = State.TRAILER;
        } else {
            remaining = size;
            state = State.CHUNK_DATA;
        }
    }

    private boolean nameIs(byte[] name, int length) {
        if (length != name.length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if ((line[i] | 0x20) != name[i]) { // ASCII lower case; '-' is unchanged by it
                return false;
            }
        }
        return true;
    }

    /** @return the number in {@code line[from, to)}, or -1 when it is empty, malformed or too large */
    private long number(int from, int to, int radix) {
        if (from >= to || to - from > 15) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = Character.digit(line[i], radix);
            if (d < 0) {
                return -1;
            }
            v = v * radix + d;
        }
        return v;
    }

    private boolean contains(int from, int to, String word) {
        outer:
        for (int i = from; i + word.length() <= to; i++) {
            for (int j = 0; j < word.length(); j++) {
                if ((line[i + j] | 0x20) != word.charAt(j)) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private State fail(String why) {
        error = why;
        state = State.DONE;
        return State.DONE;
    }

    private static boolean digit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
