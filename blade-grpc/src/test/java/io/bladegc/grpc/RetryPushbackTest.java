package io.bladegc.grpc;

import static io.bladegc.grpc.TestService.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bladegc.api.GcDecision;
import io.bladegc.api.testing.FakeNode;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The pushback trailer carries a node's retry hint as the servlet filter's {@code Blade-Retry-After-Ms} does when the
 * node is on its own, and {@code 0} when it is coordinated: other nodes serve, so a client retries on one of them at
 * once.
 */
class RetryPushbackTest {

    @Test
    void theHintIsRoundedUpToWholeMilliseconds() throws Exception {
        assertThat(pushbackFor(() -> Duration.ofNanos(1_234_500_000L))).isEqualTo("1235");
        assertThat(pushbackFor(() -> Duration.ofMillis(40))).isEqualTo("40");
    }

    @Test
    void aZeroHintIsOneMillisecondAndAHugeOneAnHour() throws Exception {
        assertThat(pushbackFor(() -> Duration.ZERO)).isEqualTo("1");
        assertThat(pushbackFor(() -> Duration.ofDays(2))).isEqualTo("3600000");
    }

    @Test
    void aNodeThatCannotSayGivesOneSecond() throws Exception {
        assertThat(pushbackFor(() -> {
            throw new IllegalStateException("no pause model");
        })).isEqualTo("1000");
    }

    @Test
    void aCoordinatedNodeSendsTheClientElsewhereAtOnce() throws Exception {
        FakeNode node = new FakeNode(() -> Duration.ofMillis(40));
        node.register(request -> GcDecision.DEFER);
        node.gate().close();
        try (InProcessServer server = new InProcessServer(new TestService(), new BladeServerInterceptor(node))) {
            StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
                () -> server.blocking().unaryRpc(request("hello")));
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(e.getTrailers().get(BladeServerInterceptor.RETRY_PUSHBACK_MS)).isEqualTo("0");
            assertThat(e.getStatus().getDescription()).isEqualTo("Blade: collecting garbage; retry on another backend");

            Metadata retry = new Metadata();
            retry.put(Metadata.Key.of(BladeServerInterceptor.PREVIOUS_ATTEMPTS_NAME, Metadata.ASCII_STRING_MARSHALLER),
                "1");
            StatusRuntimeException again = catchThrowableOfType(StatusRuntimeException.class,
                () -> server.blocking().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(retry))
                    .unaryRpc(request("hello")));
            assertThat(again.getTrailers().get(BladeServerInterceptor.RETRY_PUSHBACK_MS))
                .as("a retry that came back waits the hint").isEqualTo("40");
        }
    }

    private static String pushbackFor(Supplier<Duration> hint) throws Exception {
        FakeNode node = new FakeNode(hint);
        node.gate().close();
        try (InProcessServer server = new InProcessServer(new TestService(), new BladeServerInterceptor(node))) {
            StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class,
                () -> server.blocking().unaryRpc(request("hello")));
            String pushback = e.getTrailers().get(BladeServerInterceptor.RETRY_PUSHBACK_MS);
            assertThat(e.getStatus().getDescription()).endsWith("retry after " + pushback + " ms");
            return pushback;
        }
    }
}
