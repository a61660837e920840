package io.bladegc.agent.coordination;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.coordination.CoordinatorException.Kind;
import io.bladegc.agent.coordination.FakeCoordinator.Reply;
import io.bladegc.api.grant.SlotAnswer;
import io.bladegc.api.slot.Ask;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The wire protocol: paths, bodies, headers, answers, and what each failure is called. */
class CoordinatorClientTest {
    private FakeCoordinator fake;
    private CoordinatorClient client;

    @BeforeEach
    void start() throws IOException {
        fake = FakeCoordinator.start();
        client = client(List.of(fake.uri()), "web-1.42", null, Duration.ofSeconds(2));
    }

    @AfterEach
    void stop() {
        client.close();
        fake.close();
    }

    static CoordinatorClient client(List<URI> replicas, String nodeId, String token, Duration timeout) {
        return new CoordinatorClient(replicas, nodeId, token, timeout, new CoordinationCounters(), new LogLines());
    }

    static CoordinatorException failure(ThrowingCall call) {
        try {
            call.run();
        } catch (CoordinatorException e) {
            return e;
        } catch (ExecutionException e) {
            return CoordinatorAnswers.unwrap(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("no failure");
    }

    interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void everyOperationPostsToItsPathWithItsBody() throws Exception {
        client.join();
        client.heartbeat(Heartbeat.ALIVE);
        assertThat(client.acquire(Ask.young(3, 120), 50).get().kind()).isEqualTo(SlotAnswer.Kind.GRANTED);
        client.renew(7);
        client.release(7, 12);
        client.cancel(4);
        client.leave();
        assertThat(fake.calls()).extracting(FakeCoordinator.Call::op)
            .containsExactly("join", "heartbeat", "acquire", "renew", "release", "cancel", "leave");
        assertThat(fake.calls()).allSatisfy(c -> assertThat(c.node()).isEqualTo("web-1.42"));
        assertThat(fake.calls("join").get(0).body()).isEmpty();
        assertThat(fake.calls("acquire").get(0).body()).containsEntry("gcId", 3).containsEntry("leadMillis", 120)
            .containsEntry("waitMillis", 50);
        assertThat(fake.calls("release").get(0).body()).containsEntry("epoch", 7).containsEntry("pauseMillis", 12);
        assertThat(fake.calls("renew").get(0).body()).containsEntry("epoch", 7);
        assertThat(fake.calls("cancel").get(0).body()).containsEntry("gcId", 4);
    }

    @Test
    void heartbeatsSayWhatTheNodeExpectsAndAFullCollectionIsOfferedAndItsAcceptanceRead() throws Exception {
        client.heartbeat(new Heartbeat(1_234, 5_678));
        client.heartbeat(Heartbeat.ALIVE);
        client.heartbeat(new Heartbeat(36_733_645_506L, 36_733_645_507L)); // nearly idle: beyond what is taken
        client.heartbeat(new Heartbeat(-1, 5_678));
        assertThat(fake.calls("heartbeat").get(0).body()).containsEntry("dueInMillis", 1_234)
            .containsEntry("fullDueInMillis", 5_678);
        assertThat(fake.calls("heartbeat").get(1).body()).isEmpty();
        assertThat(fake.calls("heartbeat").get(2).body()).as("sent as unknown, not refused").isEmpty();
        assertThat(fake.calls("heartbeat").get(3).body()).doesNotContainKey("dueInMillis")
            .containsEntry("fullDueInMillis", 5_678);
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"GRANTED\",\"epoch\":7,\"remainingMillis\":9000,"
            + "\"full\":true}"));
        assertThat(client.acquire(new Ask(1, 80, false, 0, 450), 50).get().full()).isTrue();
        assertThat(fake.calls("acquire").get(0).body()).containsEntry("fullPauseMillis", 450);
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"GRANTED\",\"epoch\":8,\"remainingMillis\":9000}"));
        assertThat(client.acquire(Ask.young(2, 80), 50).get().full()).isFalse();
        assertThat(fake.calls("acquire").get(1).body()).doesNotContainKey("fullPauseMillis");
    }

    @Test
    void aHeartbeatsAnswerMayInviteTheNodeToCollectNow() throws Exception {
        assertThat(client.heartbeat(Heartbeat.ALIVE)).isFalse();
        fake.on("heartbeat", c -> Reply.status(200, "{\"status\":\"OK\",\"invited\":true,\"message\":\"now\"}"));
        assertThat(client.heartbeat(Heartbeat.ALIVE)).isTrue();
        fake.on("heartbeat", c -> Reply.status(200, "alive"));
        assertThat(client.heartbeat(Heartbeat.ALIVE)).as("an answer without JSON: still a member, not invited")
            .isFalse();
    }

    @Test
    void theLeaseEndsRemainingMillisAfterTheCallWasSentWhateverTheCoordinatorsClock() throws Exception {
        fake.on("acquire", c -> Reply.granted(7, 2_000)); // the fake's clock is an hour ahead
        long before = System.nanoTime();
        SlotAnswer a = client.acquire(Ask.young(1, 0), 0).get();
        long after = System.nanoTime();
        assertThat(a.kind()).isEqualTo(SlotAnswer.Kind.GRANTED);
        assertThat(a.epoch()).isEqualTo(7);
        assertThat(a.leaseEndNanos()).isBetween(before + 2_000_000_000L, after + 2_000_000_000L);
    }

    @Test
    void withoutRemainingMillisTheLeaseIsDeadlineMinusNowOfTheSameAnswer() throws Exception {
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"GRANTED\",\"epoch\":7,\"deadline\":5000,"
            + "\"now\":3000}"));
        long before = System.nanoTime();
        SlotAnswer a = client.acquire(Ask.young(1, 0), 0).get();
        assertThat(a.leaseEndNanos()).isBetween(before + 2_000_000_000L, System.nanoTime() + 2_000_000_000L);
    }

    @Test
    void withNeitherTheDeadlineIsWallClockTime() throws Exception {
        long wall = System.currentTimeMillis();
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"GRANTED\",\"epoch\":7,\"deadline\":"
            + (wall + 2_000) + "}"));
        long before = System.nanoTime();
        SlotAnswer a = client.acquire(Ask.young(1, 0), 0).get();
        assertThat(Duration.ofNanos(a.leaseEndNanos() - before)).isBetween(Duration.ofMillis(1_500),
            Duration.ofMillis(2_100));
    }

    @Test
    void cancelledIsAnAnswer() throws Exception {
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"CANCELLED\",\"message\":\"GC request 1 is no "
            + "longer queued\"}"));
        assertThat(client.acquire(Ask.young(1, 0), 0).get()).isEqualTo(SlotAnswer.cancelled());
    }

    @Test
    void unscheduledIsAnAnswer() throws Exception {
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"UNSCHEDULED\",\"message\":\"the coordinator has"
            + " stepped down\"}"));
        assertThat(client.acquire(Ask.young(1, 0), 0).get()).isEqualTo(SlotAnswer.unscheduled());
    }

    @Test
    void anAcquireSaysWhichCollectionItAsksForAndHowLongItExpectsToHold() throws Exception {
        fake.on("acquire", c -> Reply.granted(3, 1_000));
        client.acquire(new Ask(4, 90, true, 520, 0), 0).get();
        Map<String, Object> body = fake.calls("acquire").get(0).body();
        assertThat(body.get("full")).isEqualTo(true);
        assertThat(body.get("holdMillis")).hasToString("520");
        assertThat(body.get("leadMillis")).hasToString("90");
        assertThat(body).doesNotContainKey("fullPauseMillis");
    }

    @Test
    void queuedWithAndWithoutAPosition() throws Exception {
        fake.on("acquire", c -> Reply.queued(4));
        assertThat(client.acquire(Ask.young(1, 0), 0).get()).isEqualTo(SlotAnswer.queued(4));
        fake.on("acquire", c -> Reply.status(200, "{\"status\":\"QUEUED\"}"));
        assertThat(client.acquire(Ask.young(1, 0), 0).get()).isEqualTo(SlotAnswer.queued(0));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "404 | UNKNOWN_NODE | UNKNOWN_NODE | false",
        "404 | NOT_FOUND    | BAD_ANSWER   | true",
        "409 | STALE_EPOCH  | STALE_EPOCH  | false",
        "409 | REJECTED     | REJECTED     | false",
        "400 | BAD_REQUEST  | REJECTED     | false",
        "401 | UNAUTHORIZED | UNAUTHORIZED | true",
        "408 | REQUEST_TIMEOUT | BAD_ANSWER | true",
        "503 | UNAVAILABLE  | BAD_ANSWER   | true",
        "503 | NOT_LEADER   | NOT_LEADER   | true",
    })
    void theCoordinatorsStatusesHaveKinds(int status, String named, Kind kind, boolean down) {
        fake.on("acquire", c -> Reply.status(status, "{\"status\":\"" + named + "\",\"message\":\"m\"}"));
        CoordinatorException e = failure(() -> client.acquire(Ask.young(1, 0), 0).get());
        assertThat(e.kind()).isEqualTo(kind);
        assertThat(e.kind().coordinatorDown()).isEqualTo(down);
        assertThat(e.getMessage()).isEqualTo("acquire: HTTP " + status + ": m");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "404 | UNKNOWN_NODE | false",
        "409 | STALE_EPOCH  | false",
        "400 | REJECTED     | false",
        "401 | UNAUTHORIZED | true",
        "403 | UNAUTHORIZED | true",
        "413 | BAD_ANSWER   | true",
        "500 | BAD_ANSWER   | true",
        "503 | BAD_ANSWER   | true",
    })
    void statusesHaveKinds(int status, Kind kind, boolean down) {
        fake.on("release", c -> Reply.status(status, "{\"message\":\"why\\nnot\"}"));
        CoordinatorException e = failure(() -> client.release(1, 1));
        assertThat(e.kind()).isEqualTo(kind);
        assertThat(e.kind().coordinatorDown()).isEqualTo(down);
        assertThat(e.status()).isEqualTo(status);
        assertThat(e.getMessage()).isEqualTo("release: HTTP " + status + ": why not");
    }

    @Test
    void aNonJsonErrorBodyIsShownAsTextOnOneLineAndShort() {
        fake.on("heartbeat", c -> Reply.status(502, "<html>\n" + "x".repeat(500) + "</html>"));
        CoordinatorException e = failure(() -> client.heartbeat(Heartbeat.ALIVE));
        assertThat(e.getMessage()).startsWith("heartbeat: HTTP 502: <html> xxx").endsWith("...").doesNotContain("\n")
            .hasSizeLessThan(250);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"status\":\"GRANTED\",\"deadline\":5}",
        "{\"status\":\"GRANTED\",\"epoch\":\"7\",\"deadline\":5}",
        "{\"status\":\"GRANTED\",\"epoch\":7}",
        "{\"status\":\"GRANTED\",\"epoch\":7.5,\"deadline\":5}",
        "{\"status\":\"OK\"}",
        "[1,2]",
        "not json",
        "''",
    })
    void anAcquireAnswerThatIsNotTheJsonExpectedIsABadAnswer(String body) {
        fake.on("acquire", c -> Reply.status(200, body));
        CoordinatorException e = failure(() -> client.acquire(Ask.young(1, 0), 0).get());
        assertThat(e.kind()).isEqualTo(Kind.BAD_ANSWER);
        assertThat(e.getMessage()).startsWith("acquire: ").doesNotContain("\n");
    }

    @Test
    void refusedIsUnreachable() throws IOException {
        CoordinatorClient c = client(List.of(URI.create("http://127.0.0.1:" + FreePorts.one())),
            "n", null, Duration.ofSeconds(4));
        long t0 = System.nanoTime();
        CoordinatorException e = failure(c::join);
        assertThat(e.kind()).isEqualTo(Kind.UNREACHABLE);
        assertThat(e.kind().coordinatorDown()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("no wait for the timeout").isLessThan(
            Duration.ofSeconds(2));
        c.close();
    }

    @Test
    void noAnswerIsATimeoutWithinTheTimeout() {
        fake.on("heartbeat", c -> Reply.blackHoled());
        CoordinatorClient c = client(List.of(fake.uri()), "n", null, Duration.ofMillis(500));
        long t0 = System.nanoTime();
        CoordinatorException e = failure(() -> c.heartbeat(Heartbeat.ALIVE));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        c.close();
        assertThat(e.kind()).isEqualTo(Kind.TIMEOUT);
        assertThat(took).as("the timeout (+ grace, + slack for a loaded machine)").isBetween(Duration.ofMillis(450),
            Duration.ofMillis(500).plus(CoordinatorClient.GRACE).plusMillis(700));
    }

    @Test
    void theTokenGoesIntoTheAuthorizationHeaderOnly() throws Exception {
        CoordinatorClient c = client(List.of(fake.uri()), "n", "abc.DEF-123_~+/=", Duration.ofSeconds(2));
        fake.on("release", x -> Reply.status(409, "{\"message\":\"stale\"}"));
        c.join();
        CoordinatorException e = failure(() -> c.release(1, 1));
        assertThat(fake.calls()).allSatisfy(x -> assertThat(x.authorization()).isEqualTo("Bearer abc.DEF-123_~+/="));
        assertThat(e.getMessage()).doesNotContain("abc.DEF");
        c.close();
    }

    @Test
    void everyCallCarriesTheNodesOwnMemberKey() throws Exception {
        client.join();
        client.heartbeat(Heartbeat.ALIVE);
        client.acquire(Ask.young(1, 10), 0).get(5, TimeUnit.SECONDS);
        client.release(7, 1);
        client.cancel(2);
        client.leave();
        String key = fake.calls().get(0).memberKey();
        assertThat(key).matches("[A-Za-z0-9_-]{22}");
        assertThat(fake.calls()).hasSize(6).allSatisfy(x -> assertThat(x.memberKey()).isEqualTo(key));
        CoordinatorClient other = client(List.of(fake.uri()), "n", null, Duration.ofSeconds(2));
        other.join();
        assertThat(fake.calls().get(6).memberKey()).as("another process's key").isNotEqualTo(key);
        other.close();
    }

    @Test
    void warmUpCallsNobody() {
        client.warmUp();
        assertThat(fake.calls()).isEmpty();
    }

    @Test
    void anEndlessAnswerFailsTheCallAndIsNotReadOn() throws Exception {
        // something else answers on the coordinator's address: 200 and a chunked body that never ends
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            AtomicLong written = new AtomicLong();
            CompletableFuture<Throwable> stopped = CompletableFuture.supplyAsync(() -> {
                try (Socket s = server.accept()) {
                    s.getInputStream().read(new byte[4096]);
                    OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                    byte[] chunk = ("4000\r\n" + "x".repeat(0x4000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
                    while (written.get() < 1L << 30) {
                        out.write(chunk);
                        written.addAndGet(0x4000);
                    }
                    return null;
                } catch (IOException e) {
                    return e; // the client closed the connection
                }
            });
            CoordinatorClient c = client(List.of(URI.create("http://127.0.0.1:" + server.getLocalPort())), "n1", null,
                Duration.ofSeconds(5));
            try {
                CoordinatorException e = failure(c::join);
                assertThat(e.kind()).isEqualTo(Kind.BAD_ANSWER);
                assertThat(e.getMessage()).contains("answer longer than " + BoundedExchange.MAX_BODY + " bytes");
                assertThat(stopped.get(10, TimeUnit.SECONDS)).as("the connection closed by the client").isNotNull();
                assertThat(written.get()).as("bytes sent before the client closed (socket buffers included)")
                    .isLessThan(64L << 20);
            } finally {
                c.close();
            }
        }
    }
}
