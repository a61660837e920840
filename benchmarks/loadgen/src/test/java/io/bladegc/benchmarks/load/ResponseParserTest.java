package io.bladegc.benchmarks.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseParserTest {
    private final ResponseParser parser = new ResponseParser();

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aContentLengthBodyIsSkippedAndTheNextResponseStaysInTheBuffer() {
        ByteBuffer in = bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"
            + "HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(parser.feed(in)).isTrue();
        assertThat(parser.status()).isEqualTo(200);
        assertThat(parser.closes()).isFalse();
        assertThat(parser.retryAfter()).isEqualTo(RetryAfter.NOT_APPLICABLE);
        parser.reset();
        assertThat(parser.feed(in)).isTrue();
        assertThat(parser.status()).isEqualTo(204);
        assertThat(in.hasRemaining()).isFalse();
    }

    @Test
    void aResponseSplitAtEveryByteParsesTheSame() {
        String response = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n4;ext=1\r\nbusy\r\n3\r\nabc\r\n0\r\nX-Trailer: y\r\n\r\n";
        byte[] all = response.getBytes(StandardCharsets.US_ASCII);
        boolean done = false;
        for (int i = 0; i < all.length; i++) {
            ByteBuffer one = ByteBuffer.wrap(all, i, 1);
            done = parser.feed(one);
            assertThat(done).as("complete only at the last byte (%d)", i).isEqualTo(i == all.length - 1);
        }
        assertThat(done).isTrue();
        assertThat(parser.status()).isEqualTo(503);
        assertThat(parser.retryAfter()).isEqualTo(RetryAfter.VALID);
        assertThat(parser.closes()).isTrue();
    }

    @Test
    void retryAfterIsJudgedAsTheLoadResultCountsIt() {
        assertThat(retryAfterOf("HTTP/1.1 503 x\r\nContent-Length: 0\r\n\r\n")).isEqualTo(RetryAfter.MISSING);
        assertThat(retryAfterOf("HTTP/1.1 503 x\r\nretry-after: soon\r\n\r\n")).isEqualTo(RetryAfter.INVALID);
        assertThat(retryAfterOf("HTTP/1.1 503 x\r\nRetry-After: 1\r\nRetry-After: 2\r\n\r\n"))
            .isEqualTo(RetryAfter.INVALID);
        assertThat(retryAfterOf("HTTP/1.1 503 x\r\nRetry-After:  12 \r\n\r\n")).isEqualTo(RetryAfter.VALID);
    }

    @Test
    void malformedResponsesAreErrorsNotGuesses() {
        assertThatThrownBy(() -> new ResponseParser().feed(bytes("SMTP ready\r\n")))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("status line");
        assertThatThrownBy(() -> new ResponseParser().feed(bytes("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n")))
            .hasMessageContaining("Content-Length");
        assertThatThrownBy(() -> new ResponseParser().feed(bytes("HTTP/1.1 200 OK\r\nno colon\r\n\r\n")))
            .hasMessageContaining("colon");
        assertThatThrownBy(() -> new ResponseParser().feed(bytes(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"))).hasMessageContaining("chunk size");
    }

    @Test
    void http10ClosesAndALongHeaderValueIsTruncatedNotAProblem() {
        String longValue = "v".repeat(500);
        assertThat(parser.feed(bytes("HTTP/1.0 200 OK\r\nX-Long: " + longValue + "\r\nContent-Length: 2\r\n\r\nok")))
            .isTrue();
        assertThat(parser.closes()).isTrue();
        assertThat(parser.status()).isEqualTo(200);
    }

    private static RetryAfter retryAfterOf(String response) {
        ResponseParser p = new ResponseParser();
        assertThat(p.feed(bytes(response))).isTrue();
        return p.retryAfter();
    }
}
