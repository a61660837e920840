package io.bladegc.coordinator.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bladegc.coordinator.lb.HaproxyRuntimeApi.AdminState;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class HaproxyRuntimeApiTest {

    /** {@code show servers state be} from HAProxy 2.6 with s1 drained and s2 in maintenance. */
    static final String SHOW_SERVERS_STATE = "1\n"
            + "# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight"
            + " srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state"
            + " srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port"
            + " srv_check_addr srv_agent_addr srv_agent_port\n"
            + "3 be 1 s1 127.0.0.1 2 8 1 1 0 1 0 2 0 0 0 0 - 18081 - 0 0 - - 0\n"
            + "3 be 2 s2 127.0.0.1 0 1 1 1 1 1 0 0 0 0 0 0 - 18082 - 0 0 - - 0\n"
            + "3 be 3 s3 127.0.0.1 2 0 1 1 1 1 0 2 0 0 0 0 - 18083 - 0 0 - - 0\n"
            + "\n";

    private static HaproxyRuntimeApi.Builder api(FakeRuntimeApi fake) throws IOException {
        return HaproxyRuntimeApi.builder(fake.endpoint())
                .server("node-1", "be/s1")
                .server("node-2", "be/s2")
                .connectTimeout(Duration.ofSeconds(1))
                .readTimeout(Duration.ofSeconds(2));
    }

    // ---- command formatting ----

    @Test
    void drainSendsSetServerStateDrainOnOneLineOnItsOwnConnection() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.OK)) {
            api(fake).build().drain("node-1");
            assertThat(fake.received()).containsExactly("set server be/s1 state drain\n");
            assertThat(fake.connections()).isEqualTo(1);
        }
    }

    @Test
    void readySendsSetServerStateReady() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.OK)) {
            HaproxyRuntimeApi lb = api(fake).build();
            lb.drain("node-2");
            lb.ready("node-2");
            assertThat(fake.received()).containsExactly("set server be/s2 state drain\n", "set server be/s2 state ready\n");
            assertThat(fake.connections()).isEqualTo(2);
        }
    }

    @Test
    void drainStateMaintSendsMaint() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.OK)) {
            HaproxyRuntimeApi lb = api(fake).drainState(AdminState.MAINT).build();
            lb.drain("node-1");
            lb.ready("node-1");
            assertThat(fake.received()).containsExactly("set server be/s1 state maint\n", "set server be/s1 state ready\n");
            assertThat(lb.drainState()).isEqualTo(AdminState.MAINT);
        }
    }

    @Test
    void worksOverAUnixSocket(@TempDir Path dir) throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.unix(dir, FakeRuntimeApi.OK)) {
            HaproxyRuntimeApi lb = api(fake).build();
            assertThat(lb.endpoint().isUnix()).isTrue();
            lb.drain("node-1");
            lb.ready("node-1");
            assertThat(fake.received()).containsExactly("set server be/s1 state drain\n", "set server be/s1 state ready\n");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\n", "\r\n", "\n\n"})
    void anEmptyAnswerIsSuccess(String answer) throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.answer(answer))) {
            api(fake).build().drain("node-1");
            assertThat(fake.received()).hasSize(1);
        }
    }

    // ---- error answers ----

    @Test
    void anAnswerIsAnErrorNamingNodeCommandAndAnswer() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.answer("No such server.\n\n"))) {
            LoadBalancerException e = thrown(() -> api(fake).build().drain("node-1"));
            assertThat(e).isNotNull();
            assertThat(e.getMessage())
                    .contains("node 'node-1'", "be/s1", "'set server be/s1 state drain'", "answered: No such server.",
                            fake.endpoint().toString());
            assertThat(e.node()).isEqualTo("node-1");
            assertThat(e.command()).isEqualTo("set server be/s1 state drain");
            assertThat(e.answer()).isEqualTo("No such server.");
        }
    }

    @Test
    void aMultiLineAnswerStaysOnOneLineOfTheMessage() throws Exception {
        String usage = "usage: set server <backend>/<server> addr | state | weight\nsecond line\n\n";
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.answer(usage))) {
            assertThatThrownBy(() -> api(fake).build().ready("node-2"))
                    .isInstanceOf(LoadBalancerException.class)
                    .hasMessageContaining("'set server be/s2 state ready' answered: usage: set server")
                    .hasMessageContaining(" | second line")
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void permissionDeniedSaysTheSocketNeedsLevelAdmin() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.answer("Permission denied\n\n"))) {
            assertThatThrownBy(() -> api(fake).build().drain("node-1"))
                    .isInstanceOf(LoadBalancerException.class)
                    .hasMessageContaining("Permission denied")
                    .hasMessageContaining("level admin");
        }
    }

    @Test
    void anUnmappedNodeIsAnErrorAndNothingIsSent() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.OK)) {
            LoadBalancerException e = thrown(() -> api(fake).build().drain("node-9"));
            assertThat(e.getMessage()).contains("node 'node-9'", "no HAProxy server", "node-1, node-2");
            assertThat(e.node()).isEqualTo("node-9");
            assertThat(e.command()).isNull();
            assertThat(fake.connections()).isZero();
        }
    }

    @Test
    void anAnswerLargerThanTheLimitIsAnError() throws Exception {
        byte[] chunk = "x".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
        FakeRuntimeApi.Responder flood = (command, out) -> {
            for (int i = 0; i < RuntimeApiClient.MAX_ANSWER_BYTES / chunk.length + 2; i++) {
                out.write(chunk);
            }
        };
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(flood)) {
            assertThatThrownBy(() -> api(fake).build().serverState("node-1"))
                    .isInstanceOf(LoadBalancerException.class)
                    .hasMessageContaining("answer longer than");
        }
    }

    @Test
    void onlyOneCommandLineCanBeSent() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.OK)) {
            RuntimeApiClient client = new RuntimeApiClient(fake.endpoint(), Duration.ofSeconds(1), Duration.ofSeconds(2));
            assertThatThrownBy(() -> client.exchange("show info\nshutdown frontend fe")).isInstanceOf(IllegalArgumentException.class);
            assertThat(fake.connections()).isZero();
        }
    }

    // ---- unreachable, timeouts ----

    @Test
    void connectionRefusedIsAClearError() throws Exception {
        int port = FreePorts.one();
        HaproxyRuntimeApi lb = HaproxyRuntimeApi.builder(RuntimeApiEndpoint.tcp("127.0.0.1", port)).server("n", "be/s1").build();
        LoadBalancerException e = thrown(() -> lb.drain("n"));
        assertThat(e.getMessage()).contains("tcp:127.0.0.1:" + port, "node 'n'", "set server be/s1 state drain", "cannot connect");
        assertThat(e.answer()).isNull();
    }

    @Test
    void aMissingUnixSocketIsAClearError(@TempDir Path dir) {
        Path socket = dir.resolve("nope.sock");
        HaproxyRuntimeApi lb = HaproxyRuntimeApi.builder(RuntimeApiEndpoint.unix(socket)).server("n", "be/s1").build();
        assertThatThrownBy(() -> lb.ready("n"))
                .isInstanceOf(LoadBalancerException.class)
                .hasMessageContaining("unix:" + socket)
                .hasMessageContaining("cannot connect");
    }

    @Test
    void aSilentServerTimesOutAfterTheReadTimeout() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.SILENT)) {
            HaproxyRuntimeApi lb = api(fake).readTimeout(Duration.ofMillis(300)).build();
            long start = System.nanoTime();
            LoadBalancerException e = thrown(() -> lb.drain("node-1"));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(e.getMessage()).contains("node 'node-1'", "set server be/s1 state drain", "timed out after 300 ms");
            assertThat(e.getCause()).isInstanceOf(SocketTimeoutException.class);
            assertThat(tookMs).isBetween(250L, 3_000L);
        }
    }

    @Test
    void theReadTimeoutBoundsTheWholeAnswerNotEachRead() throws Exception {
        FakeRuntimeApi.Responder trickle = (command, out) -> {
            for (int i = 0; i < 50; i++) {
                out.write('x');
                out.flush();
                Thread.sleep(100);
            }
        };
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(trickle)) {
            HaproxyRuntimeApi lb = api(fake).readTimeout(Duration.ofMillis(400)).build();
            long start = System.nanoTime();
            assertThatThrownBy(() -> lb.ready("node-1")).isInstanceOf(LoadBalancerException.class)
                    .hasMessageContaining("timed out after 400 ms");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000L);
        }
    }

    @Test
    void connectTimesOutWhenTheListenerDoesNotAccept() throws Exception {
        // A listener that never accepts, with its accept queue filled: Linux then drops further SYNs, so a connect
        // hangs until the client gives up. Skipped where the queue does not fill that way.
        List<Socket> fillers = new ArrayList<>();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
            boolean full = false;
            for (int i = 0; i < 16 && !full; i++) {
                Socket s = new Socket();
                fillers.add(s);
                try {
                    s.connect(address, 200);
                } catch (SocketTimeoutException e) {
                    full = true;
                }
            }
            assumeTrue(full, "the accept queue never filled on this platform");
            HaproxyRuntimeApi lb = HaproxyRuntimeApi.builder(RuntimeApiEndpoint.tcp("127.0.0.1", listener.getLocalPort()))
                    .server("n", "be/s1").connectTimeout(Duration.ofMillis(300)).build();
            long start = System.nanoTime();
            assertThatThrownBy(() -> lb.drain("n")).isInstanceOf(LoadBalancerException.class)
                    .hasMessageContaining("timed out after 300 ms connecting");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 3_000L);
        } finally {
            for (Socket s : fillers) {
                s.close();
            }
        }
    }

    @Test
    void anInterruptEndsTheWaitAndKeepsTheInterruptStatus() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.SILENT)) {
            HaproxyRuntimeApi lb = api(fake).readTimeout(Duration.ofSeconds(30)).build();
            ExecutorService exec = Executors.newSingleThreadExecutor();
            try {
                Future<Object[]> result = exec.submit(() -> {
                    try {
                        lb.drain("node-1");
                        return new Object[] {null, Thread.currentThread().isInterrupted()};
                    } catch (LoadBalancerException e) {
                        return new Object[] {e, Thread.currentThread().isInterrupted()};
                    }
                });
                awaitConnections(fake, 1);
                exec.shutdownNow(); // interrupts the caller
                Object[] outcome = result.get(5, TimeUnit.SECONDS);
                assertThat(outcome[0]).isInstanceOf(LoadBalancerException.class);
                assertThat(((Throwable) outcome[0]).getCause()).isInstanceOf(InterruptedIOException.class);
                assertThat(outcome[1]).isEqualTo(true);
            } finally {
                exec.shutdownNow();
            }
        }
    }

    // ---- configuration ----

    static Stream<Arguments> badMappings() {
        return Stream.of(
                Arguments.of("be", "expected backend/server"),
                Arguments.of("be/", "expected backend/server"),
                Arguments.of("/s1", "expected backend/server"),
                Arguments.of("be/s1/x", "expected backend/server"),
                Arguments.of("be/s 1", "expected backend/server"),
                Arguments.of(" be/s1", "expected backend/server"),
                Arguments.of("be/s1\nshutdown frontend fe", "be/s1\\u000ashutdown"),
                Arguments.of("be/s1\r", "expected backend/server"),
                Arguments.of("be/s1;shutdown", "expected backend/server"),
                Arguments.of("be/s1\\;x", "expected backend/server"),
                Arguments.of("be/s1\t", "expected backend/server"),
                Arguments.of("bé/s1", "expected backend/server"),
                Arguments.of("be/s1<<", "expected backend/server"),
                Arguments.of("", "expected backend/server"));
    }

    @ParameterizedTest
    @MethodSource("badMappings")
    void aBadMappingIsRejectedAtConstructionNamingTheNode(String target, String detail) {
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(RuntimeApiEndpoint.tcp("127.0.0.1", 9999)).server("node-7", target).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("node 'node-7'")
                .hasMessageContaining(detail)
                .hasMessageNotContaining("\n");
    }

    @Test
    void namesWithHaproxysOtherCharactersAreAccepted() {
        HaproxyRuntimeApi lb = HaproxyRuntimeApi.builder(RuntimeApiEndpoint.tcp("127.0.0.1", 9999))
                .server("web-1.example:8080", "be_web.v2:blue/srv-1_a.b:c").build();
        assertThat(lb.servers()).containsEntry("web-1.example:8080", "be_web.v2:blue/srv-1_a.b:c");
    }

    @Test
    void otherBadConfigurationsAreRejectedClearly() {
        RuntimeApiEndpoint e = RuntimeApiEndpoint.tcp("127.0.0.1", 9999);
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no node is mapped");
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).server("a", "be/s1").server("b", "be/s1").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a' and 'b' both map to be/s1");
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).server("a", null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node 'a' has no backend/server");
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).server(" ", "be/s1").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).server("a\nb", "be/s1").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a\\u000ab").hasMessageNotContaining("\n");
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).server("a", "be/s1").drainState(AdminState.READY).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'drain' or 'maint'");
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).server("a", "be/s1").readTimeout(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read timeout must be positive");
        assertThatThrownBy(() -> HaproxyRuntimeApi.builder(e).server("a", "be/s1").connectTimeout(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("connect timeout must be positive");
    }

    static Stream<Arguments> endpoints() {
        return Stream.of(
                Arguments.of("/run/haproxy/admin.sock", "unix:/run/haproxy/admin.sock"),
                Arguments.of("unix:/run/haproxy/admin.sock", "unix:/run/haproxy/admin.sock"),
                Arguments.of("unix@/run/haproxy/admin.sock", "unix:/run/haproxy/admin.sock"),
                Arguments.of("127.0.0.1:9999", "tcp:127.0.0.1:9999"),
                Arguments.of("tcp:localhost:9999", "tcp:localhost:9999"),
                Arguments.of("ipv4@127.0.0.1:9999", "tcp:127.0.0.1:9999"),
                Arguments.of("ipv6@[::1]:9999", "tcp:[::1]:9999"),
                Arguments.of("[::1]:9999", "tcp:[::1]:9999"));
    }

    @ParameterizedTest
    @MethodSource("endpoints")
    void endpointsParse(String text, String expected) {
        assertThat(RuntimeApiEndpoint.parse(text)).hasToString(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"admin.sock", "127.0.0.1", "127.0.0.1:", "127.0.0.1:http", "127.0.0.1:0", "127.0.0.1:70000", "unix:", ":9999"})
    void badEndpointsAreRejected(String text) {
        assertThatThrownBy(() -> RuntimeApiEndpoint.parse(text)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HAProxy runtime API");
    }

    @Test
    void describeSaysWhereWhatAndWhich() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.OK)) {
            String d = api(fake).drainState(AdminState.MAINT).build().describe();
            assertThat(d).contains("HAProxy runtime API at " + fake.endpoint(), "state maint", "2 nodes",
                    "node-1 -> be/s1", "node-2 -> be/s2");
        }
        Map<String, String> many = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            many.put(String.format("n%02d", i), "be/s" + i);
        }
        String d = HaproxyRuntimeApi.of("/run/haproxy/admin.sock", many).describe();
        assertThat(d).contains("20 nodes", "n00 -> be/s0", "and 15 more", "state drain").doesNotContain("n19");
    }

    // ---- show servers state ----

    @Test
    void serverStateParsesShowServersState() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.answer(SHOW_SERVERS_STATE))) {
            HaproxyRuntimeApi lb = api(fake).server("node-3", "be/s3").build();
            ServerState s1 = lb.serverState("node-1");
            assertThat(fake.received()).containsExactly("show servers state be\n");
            assertThat(s1).isEqualTo(new ServerState("be", "s1", 2, 8));
            assertThat(s1.adminState()).isEqualTo(AdminState.DRAIN);
            assertThat(s1.operationalName()).isEqualTo("RUNNING");
            assertThat(s1.inRotation()).isFalse();
            ServerState s2 = lb.serverState("node-2");
            assertThat(s2.adminState()).isEqualTo(AdminState.MAINT);
            assertThat(s2.operationalName()).isEqualTo("STOPPED");
            assertThat(s2).hasToString("be/s2 STOPPED MAINT (admin 0x1)");
            ServerState s3 = lb.serverState("node-3");
            assertThat(s3.adminState()).isEqualTo(AdminState.READY);
            assertThat(s3.inRotation()).isTrue();
        }
    }

    @Test
    void serverStatesAsksEachBackendOnce() throws Exception {
        FakeRuntimeApi.Responder perBackend = (command, out) -> {
            String answer = command.equals("show servers state be") ? SHOW_SERVERS_STATE
                    : "1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state\n4 other 1 x 127.0.0.1 2 0\n\n";
            out.write(answer.getBytes(StandardCharsets.US_ASCII));
        };
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(perBackend)) {
            HaproxyRuntimeApi lb = api(fake).server("node-3", "be/s3").server("node-4", "other/x").build();
            Map<String, ServerState> states = lb.serverStates();
            assertThat(states).containsOnlyKeys("node-1", "node-2", "node-3", "node-4");
            assertThat(states.get("node-1").adminState()).isEqualTo(AdminState.DRAIN);
            assertThat(states.get("node-4")).isEqualTo(new ServerState("other", "x", 2, 0));
            assertThat(fake.received()).containsExactlyInAnyOrder("show servers state be\n", "show servers state other\n");
        }
    }

    @Test
    void columnsAreFoundByTheirHeaderNames() {
        String reordered = "2\n# srv_admin_state srv_name extra be_name srv_op_state\n4 s1 zz be 1\n";
        Map<String, ServerState> states = ServerState.parseAll(reordered);
        assertThat(states).containsExactly(Map.entry("be/s1", new ServerState("be", "s1", 1, 4)));
        assertThat(states.get("be/s1").adminState()).isEqualTo(AdminState.MAINT);
    }

    @Test
    void serverStateErrorsAreClear() throws Exception {
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.answer("Can't find backend.\n\n"))) {
            assertThatThrownBy(() -> api(fake).build().serverState("node-1"))
                    .isInstanceOf(LoadBalancerException.class)
                    .hasMessageContaining("node 'node-1'")
                    .hasMessageContaining("'show servers state be' answered: Can't find backend.");
        }
        String withoutS2 = "1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state\n3 be 1 s1 127.0.0.1 2 0\n\n";
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(FakeRuntimeApi.answer(withoutS2))) {
            assertThatThrownBy(() -> api(fake).build().serverState("node-2"))
                    .isInstanceOf(LoadBalancerException.class)
                    .hasMessageContaining("does not list server s2");
        }
        assertThatThrownBy(() -> ServerState.parseAll("1\n3 be 1 s1 127.0.0.1 2 0\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without a header");
        assertThatThrownBy(() -> ServerState.parseAll("1\n# be_name srv_name srv_op_state srv_admin_state\nbe s1 2\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("short line");
        assertThatThrownBy(() -> ServerState.parseAll("1\n# be_name srv_name srv_op_state srv_admin_state\nbe s1 up 0\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-numeric");
        assertThatThrownBy(() -> ServerState.parseAll("\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("answered nothing");
    }

    // ---- threads ----

    @Test
    void concurrentCallsAllArriveAndCallsForOneNodeNeverOverlap() throws Exception {
        Map<String, AtomicInteger> active = new ConcurrentHashMap<>();
        Map<String, Integer> maxActive = new ConcurrentHashMap<>();
        FakeRuntimeApi.Responder slow = (command, out) -> {
            String target = command.split(" ")[2];
            int now = active.computeIfAbsent(target, t -> new AtomicInteger()).incrementAndGet();
            maxActive.merge(target, now, Math::max);
            Thread.sleep(5);
            active.get(target).decrementAndGet();
            out.write('\n');
        };
        Map<String, String> mapping = new HashMap<>();
        for (int i = 0; i < 4; i++) {
            mapping.put("node-" + i, "be/s" + i);
        }
        int threads = 8;
        int perThread = 25;
        try (FakeRuntimeApi fake = FakeRuntimeApi.tcp(slow)) {
            HaproxyRuntimeApi lb = HaproxyRuntimeApi.builder(fake.endpoint()).servers(mapping).build();
            ExecutorService exec = Executors.newFixedThreadPool(threads);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int id = t;
                    futures.add(exec.submit(() -> {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            String node = "node-" + ((id + i) % 4);
                            if (i % 2 == 0) {
                                lb.drain(node);
                            } else {
                                lb.ready(node);
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : futures) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                exec.shutdownNow();
            }
            assertThat(fake.received()).hasSize(threads * perThread);
            assertThat(maxActive).hasSize(4);
            assertThat(maxActive.values()).allMatch(max -> max == 1);
        }
    }

    private static LoadBalancerException thrown(ThrowingCallable call) {
        Throwable t = catchThrowable(call);
        assertThat(t).isInstanceOf(LoadBalancerException.class);
        return (LoadBalancerException) t;
    }

    private static void awaitConnections(FakeRuntimeApi fake, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (fake.connections() < n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(fake.connections()).isGreaterThanOrEqualTo(n);
    }
}
