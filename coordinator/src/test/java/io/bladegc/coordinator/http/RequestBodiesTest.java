package io.bladegc.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.api.slot.Ask;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestBodiesTest {

    private static ByteBuf body(String json) {
        return Unpooled.copiedBuffer(json, StandardCharsets.UTF_8);
    }

    @Test
    void readsAnAcquire() throws ApiException {
        RequestBodies.Acquire a = RequestBodies.acquire(body("{\"gcId\":1,\"leadMillis\":120,\"waitMillis\":5000}"),
            60_000);
        assertThat(a).isEqualTo(new RequestBodies.Acquire(Ask.young(1, 120), 5_000));
        assertThat(RequestBodies.acquire(body("{\"gcId\":1,\"leadMillis\":120,\"fullPauseMillis\":450}"), 60_000))
            .isEqualTo(new RequestBodies.Acquire(new Ask(1, 120, false, 0, 450), 0));
    }

    @Test
    void anAcquireSaysWhichCollectionItAsksForAndHowLongItExpectsToHold() throws ApiException {
        assertThat(RequestBodies.acquire(body("{\"gcId\":3,\"leadMillis\":80,\"full\":true,\"holdMillis\":520}"),
            60_000)).isEqualTo(new RequestBodies.Acquire(new Ask(3, 80, true, 520, 0), 0));
        assertThatThrownBy(() -> RequestBodies.acquire(body("{\"gcId\":3,\"leadMillis\":80,\"full\":\"yes\"}"),
            60_000)).hasMessage("field 'full' must be true or false, got a string");
        assertThatThrownBy(() -> RequestBodies.acquire(body("{\"gcId\":3,\"leadMillis\":80,\"holdMillis\":-1}"),
            60_000)).hasMessageContaining("field 'holdMillis' must be between 0 and 3600000");
    }

    @Test
    void aHeartbeatMaySayWhenTheNodeIsDueAndWhenItsFullCollectionIs() throws ApiException {
        assertThat(RequestBodies.heartbeat(Unpooled.EMPTY_BUFFER)).isEqualTo(new RequestBodies.Heartbeat(-1, -1));
        assertThat(RequestBodies.heartbeat(body("{}"))).isEqualTo(new RequestBodies.Heartbeat(-1, -1));
        assertThat(RequestBodies.heartbeat(body("{\"dueInMillis\":2500}")))
            .isEqualTo(new RequestBodies.Heartbeat(2_500, -1));
        assertThat(RequestBodies.heartbeat(body("{\"dueInMillis\":2500,\"fullDueInMillis\":9000}")))
            .isEqualTo(new RequestBodies.Heartbeat(2_500, 9_000));
        assertThatThrownBy(() -> RequestBodies.heartbeat(body("{\"dueInMillis\":-3}")))
            .hasMessageContaining("field 'dueInMillis' must be between 0 and 86400000");
        assertThatThrownBy(() -> RequestBodies.heartbeat(body("{\"fullDueInMillis\":86400001}")))
            .hasMessageContaining("field 'fullDueInMillis' must be between 0 and 86400000");
    }

    @Test
    void waitAndPauseDefaultToZeroAndUnknownFieldsAreIgnored() throws ApiException {
        assertThat(RequestBodies.acquire(body("{\"gcId\":2,\"leadMillis\":0,\"future\":[1,2]}"), 1_000).waitMillis())
            .isZero();
        assertThat(RequestBodies.release(body("{\"epoch\":7}"))).isEqualTo(new RequestBodies.Release(7, 0));
    }

    @Test
    void noBodyIsFineWhereNoneIsNeeded() throws ApiException {
        RequestBodies.none(Unpooled.EMPTY_BUFFER);
        RequestBodies.none(body("{}"));
        RequestBodies.none(body("  "));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "{\"gcId\":1,                                  | malformed JSON",
        "not json                                      | malformed JSON",
        "[1,2]                                         | expected a JSON object, got an array",
        "\"gcId\"                                      | expected a JSON object, got a string",
        "{\"leadMillis\":1}                            | missing field 'gcId'",
        "{\"gcId\":\"1\",\"leadMillis\":1}             | field 'gcId' must be an integer, got a string",
        "{\"gcId\":null,\"leadMillis\":1}              | field 'gcId' must be an integer, got null",
        "{\"gcId\":1.5,\"leadMillis\":1}               | field 'gcId' must be an integer between 1 and",
        "{\"gcId\":1e3,\"leadMillis\":1}               | field 'gcId' must be an integer between 1 and",
        "{\"gcId\":0,\"leadMillis\":1}                 | field 'gcId' must be between 1 and",
        "{\"gcId\":-4,\"leadMillis\":1}                | field 'gcId' must be between 1 and",
        "{\"gcId\":99999999999999999999,\"leadMillis\":1} | field 'gcId' must be between 1 and",
        "{\"gcId\":1,\"leadMillis\":-1}                | field 'leadMillis' must be between 0 and 86400000",
        "{\"gcId\":1,\"leadMillis\":1,\"waitMillis\":60001} | field 'waitMillis' must be between 0 and 60000",
        "{\"gcId\":1,\"leadMillis\":1,\"waitMillis\":true}  | field 'waitMillis' must be an integer, got a boolean",
        "{\"gcId\":1,\"leadMillis\":1,\"fullPauseMillis\":3600001} | field 'fullPauseMillis' must be between 0 and 3600000",
        "{\"gcId\":1,\"gcId\":2,\"leadMillis\":1}      | Duplicate field 'gcId'",
        "{\"gcId\":1,\"leadMillis\":1} {}              | malformed JSON",
        "{\"gcId\":1,\"leadMillis\":1,\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]} | malformed JSON",
        "{\"gcId\":1,\"leadMillis\":123456789012345678901234567890123456789} | malformed JSON",
    })
    void rejectsBadAcquires(String json, String message) {
        assertThatThrownBy(() -> RequestBodies.acquire(body(json), 60_000))
            .isInstanceOfSatisfying(ApiException.class, e -> {
                assertThat(e.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
                assertThat(e.getMessage()).contains(message);
            });
    }

    @Test
    void aMissingBodyIsNamed() {
        assertThatThrownBy(() -> RequestBodies.release(Unpooled.EMPTY_BUFFER)).hasMessage(
            "missing JSON body: expected an object");
        assertThatThrownBy(() -> RequestBodies.epoch(body("{\"epoch\":0}")))
            .hasMessageContaining("field 'epoch' must be between 1 and");
        assertThatThrownBy(() -> RequestBodies.gcId(body("{}"))).hasMessage("missing field 'gcId'");
        assertThatThrownBy(() -> RequestBodies.release(body("{\"epoch\":1,\"pauseMillis\":3600001}")))
            .hasMessageContaining("field 'pauseMillis' must be between 0 and 3600000");
    }

    @Test
    void invalidUtf8AndControlCharactersAreMalformed() {
        ByteBuf bad = Unpooled.wrappedBuffer(new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'});
        assertThatThrownBy(() -> RequestBodies.gcId(bad)).hasMessageContaining("malformed JSON");
        assertThatThrownBy(() -> RequestBodies.gcId(body("{\"gc\u0001Id\":1}"))).hasMessageContaining("malformed JSON");
    }
}
