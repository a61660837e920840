package io.bladegc.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConnectionLimitTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong now = new AtomicLong(42 * SECOND);
    private final ConnectionLimit limit = new ConnectionLimit(2);

    private EmbeddedChannel connect() {
        ConnectionActivity activity = new ConnectionActivity(now::get);
        EmbeddedChannel ch = new EmbeddedChannel(activity);
        if (!limit.admit(ch, activity)) {
            ch.close();
        }
        return ch;
    }

    private static void request(EmbeddedChannel ch) {
        ch.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/health"));
        ch.readInbound();
    }

    private static void answer(EmbeddedChannel ch, HttpResponseStatus status) {
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER));
        ch.readOutbound();
    }

    @Test
    void underTheLimitEveryConnectionIsTaken() {
        assertThat(connect().isOpen()).isTrue();
        assertThat(connect().isOpen()).isTrue();
        assertThat(limit.open()).isEqualTo(2);
    }

    @Test
    void whenFullAndNobodyIdleASecondTheNewConnectionIsClosed() {
        EmbeddedChannel a = connect();
        EmbeddedChannel b = connect();
        now.addAndGet(SECOND - 1);
        assertThat(connect().isOpen()).isFalse();
        assertThat(a.isOpen() && b.isOpen()).isTrue();
        assertThat(limit.open()).isEqualTo(2);
    }

    @Test
    void whenFullTheConnectionIdleLongestMakesRoom() {
        EmbeddedChannel older = connect();
        now.addAndGet(SECOND);
        EmbeddedChannel newer = connect();
        now.addAndGet(SECOND);
        EmbeddedChannel c = connect();
        assertThat(c.isOpen()).isTrue();
        assertThat(older.isOpen()).isFalse();
        assertThat(newer.isOpen()).isTrue();
    }

    @Test
    void aConnectionNeverServedGoesBeforeOneThatWas() {
        EmbeddedChannel member = connect();
        request(member);
        answer(member, HttpResponseStatus.OK);
        now.addAndGet(SECOND);
        EmbeddedChannel silent = connect(); // idle for a shorter time, but never served
        now.addAndGet(5 * SECOND);
        assertThat(connect().isOpen()).isTrue();
        assertThat(silent.isOpen()).isFalse();
        assertThat(member.isOpen()).isTrue();
    }

    @Test
    void aRefusedRequestDoesNotCountAsServed() {
        EmbeddedChannel refused = connect();
        request(refused);
        answer(refused, HttpResponseStatus.UNAUTHORIZED);
        EmbeddedChannel silent = connect();
        now.addAndGet(2 * SECOND);
        assertThat(connect().isOpen()).isTrue();
        assertThat(refused.isOpen()).as("idle longest, and never served").isFalse();
        assertThat(silent.isOpen()).isTrue();
    }

    @Test
    void aRequestWaitingForItsAnswerIsNeverIdle() {
        EmbeddedChannel longPoll = connect();
        request(longPoll);
        EmbeddedChannel other = connect();
        request(other);
        now.addAndGet(60 * SECOND);
        assertThat(connect().isOpen()).isFalse();
        answer(other, HttpResponseStatus.OK);
        now.addAndGet(SECOND);
        assertThat(connect().isOpen()).isTrue();
        assertThat(other.isOpen()).isFalse();
        assertThat(longPoll.isOpen()).isTrue();
    }

    @Test
    void aClosedConnectionFreesItsPlace() {
        EmbeddedChannel a = connect();
        connect();
        limit.closed(a);
        assertThat(connect().isOpen()).isTrue();
        assertThat(limit.open()).isEqualTo(2);
    }
}
