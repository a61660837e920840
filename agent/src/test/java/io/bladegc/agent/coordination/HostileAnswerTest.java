package io.bladegc.agent.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.coordination.CoordinatorException.Kind;
import io.bladegc.agent.coordination.HostileCoordinator.Answer;
import io.bladegc.agent.coordination.HostileCoordinator.Connection;
import io.bladegc.api.slot.Ask;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Something hostile answers on the coordinator's address: each call through the real {@link CoordinatorClient} fails
 * within its bound with a clear {@link CoordinatorException}, and the connection is closed right after: the server
 * sees it (a read returns -1 or a write fails), so that nothing more is read.
 */
class HostileAnswerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** How late, after the call failed, the server may see the connection closed (a loaded machine included). */
    private static final Duration CLOSED_WITHIN = Duration.ofSeconds(1);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "ENDLESS_BODY          | BAD_ANSWER | join: answer longer than 65536 bytes; not read on",
        "GIGABYTE_BODY         | BAD_ANSWER | join: answer of 1073741824 bytes announced, more than 65536; not read",
        "DRIP_FED_BODY         | TIMEOUT    | join: no complete answer within the coordinator timeout",
        "DRIP_FED_HEAD         | TIMEOUT    | join: no complete answer within the coordinator timeout",
        "NEVER_ENDS_AFTER_JSON | TIMEOUT    | join: no complete answer within the coordinator timeout",
        "WRONG_CONTENT_TYPE    | BAD_ANSWER | join: answer of type 'text/html', expected application/json; not read",
        "HUGE_HEADER           | BAD_ANSWER | join: status line and headers longer than 16384 bytes; not read on",
    })
    void theCallFailsWithinItsBoundAndTheConnectionIsClosed(Answer answer, Kind kind, String message)
        throws Exception {
        try (HostileCoordinator hostile = new HostileCoordinator(answer);
             CoordinatorClient client = CoordinatorClientTest.client(List.of(hostile.uri()), "n1", null, TIMEOUT)) {
            long t0 = System.nanoTime();
            CoordinatorException e = CoordinatorClientTest.failure(client::join);
            long failed = System.nanoTime();

            assertThat(e.kind()).as("%s", e.getMessage()).isEqualTo(kind);
            assertThat(e.getMessage()).startsWith(message);
            assertThat(Duration.ofNanos(failed - t0)).as("within the call's bound")
                .isLessThan(client.callBound().plusMillis(500));
            Connection c = hostile.connections().get(0);
            long closed = c.closed.get(CLOSED_WITHIN.toMillis() + 5_000, TimeUnit.MILLISECONDS);
            assertThat(Duration.ofNanos(closed - failed)).as("the server saw the connection closed soon after")
                .isLessThan(CLOSED_WITHIN);
            assertThat(c.written.get()).as("bytes sent before the client closed (socket buffers included)")
                .isLessThan(64L << 20);
            assertThat(hostile.connections()).as("one attempt, no retry").hasSize(1);
        }
    }

    @Test
    void anAbandonedCallHasItsConnectionClosed() throws Exception {
        try (HostileCoordinator hostile = new HostileCoordinator(Answer.DRIP_FED_BODY);
             CoordinatorClient client = CoordinatorClientTest.client(List.of(hostile.uri()), "n1", null,
                 Duration.ofSeconds(30))) {
            CompletableFuture<?> call = client.acquire(Ask.young(1, 100), 10);
            while (hostile.connections().isEmpty() || hostile.connections().get(0).written.get() < 3) {
                Thread.sleep(10); // the download is under way
            }
            long cancelled = System.nanoTime();
            call.cancel(true);
            long closed = hostile.connections().get(0).closed.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(closed - cancelled)).as("closed soon after the caller gave up")
                .isLessThan(CLOSED_WITHIN);
        }
    }

    @Test
    void aTimedOutWaitAbandonsTheCall() throws Exception {
        try (HostileCoordinator hostile = new HostileCoordinator(Answer.NEVER_ENDS_AFTER_JSON);
             CoordinatorClient client = CoordinatorClientTest.client(List.of(hostile.uri()), "n1", null,
                 Duration.ofSeconds(30))) {
            CompletableFuture<?> acquire = client.acquire(Ask.young(1, 100), 10);
            CoordinatorException e = CoordinatorClientTest.failure(() ->
                CoordinatorClient.await(acquire, Duration.ofMillis(300)));
            long gaveUp = System.nanoTime();
            assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
            assertThat(e.getMessage()).isEqualTo("no answer within 300 ms");
            long closed = hostile.connections().get(0).closed.get(10, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(closed - gaveUp)).as("closed soon after the wait ended")
                .isLessThan(CLOSED_WITHIN);
        }
    }
}
