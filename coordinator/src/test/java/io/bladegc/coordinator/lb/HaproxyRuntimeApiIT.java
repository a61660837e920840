package io.bladegc.coordinator.lb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import io.bladegc.coordinator.lb.HaproxyRuntimeApi.AdminState;
import io.bladegc.testkit.FreePorts;
import io.bladegc.testkit.HaproxyProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The HAProxy adapter against a real HAProxy: two JDK HTTP servers behind one backend, the runtime API on a unix
 * socket and on loopback TCP. Skipped only when no {@code haproxy} binary is installed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HaproxyRuntimeApiIT {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private Path dir;
    private Path log;
    private HaproxyProcess haproxy;
    private final List<HttpServer> backends = new ArrayList<>();
    private ExecutorService backendThreads;
    private int frontendPort;
    private int userLevelPort;
    private HaproxyRuntimeApi overUnix;
    private HaproxyRuntimeApi overTcp;

    /** The slow request: which server got it, and the latch that lets it answer. */
    private final AtomicReference<String> slowOn = new AtomicReference<>();
    private volatile CountDownLatch slowArrived = new CountDownLatch(1);
    private volatile CountDownLatch slowRelease = new CountDownLatch(1);

    @BeforeAll
    void startHaproxy() throws Exception {
        Path binary = HaproxyProcess.find().orElse(null);
        assumeTrue(binary != null, "haproxy is not installed (not on the PATH, nor in /usr/sbin): apt-get install -y haproxy");
        try {
            System.out.println("HaproxyRuntimeApiIT: " + version(binary));
            dir = Files.createTempDirectory("blade-haproxy");
            log = dir.resolve("haproxy.log");
            backendThreads = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "backend");
                t.setDaemon(true);
                return t;
            });
            int s1 = startBackend("s1");
            int s2 = startBackend("s2");
            int[] ports = FreePorts.take(3);
            frontendPort = ports[0];
            int adminPort = ports[1];
            userLevelPort = ports[2];
            haproxy = HaproxyProcess.start(binary, dir, socket -> String.join("\n",
                    "global",
                    "    maxconn 256",
                    "    nbthread 2",
                    "    stats socket " + socket + " mode 600 level admin",
                    "    stats socket 127.0.0.1:" + adminPort + " level admin",
                    "    stats socket 127.0.0.1:" + userLevelPort + " level user",
                    "defaults",
                    "    mode http",
                    "    timeout connect 1s",
                    "    timeout client 5s",
                    "    timeout server 5s",
                    "    timeout check 1s",
                    "frontend fe",
                    "    bind 127.0.0.1:" + frontendPort,
                    "    default_backend be",
                    "backend be",
                    "    balance roundrobin",
                    "    option httpchk GET /health",
                    "    server s1 127.0.0.1:" + s1 + " check inter 200ms rise 1 fall 2",
                    "    server s2 127.0.0.1:" + s2 + " check inter 200ms rise 1 fall 2",
                    ""));
            Path socket = haproxy.adminSocket();
            Map<String, String> nodes = Map.of("node-1", "be/s1", "node-2", "be/s2");
            overUnix = HaproxyRuntimeApi.builder(RuntimeApiEndpoint.unix(socket)).servers(nodes).build();
            overTcp = HaproxyRuntimeApi.builder(RuntimeApiEndpoint.tcp("127.0.0.1", adminPort)).servers(nodes)
                    .drainState(AdminState.MAINT).build();
            await("haproxy answers on its unix socket and TCP admin port").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                    .ignoreException(LoadBalancerException.class)
                    .until(() -> {
                        assertThat(haproxy.process().isAlive()).as("haproxy exited: %s", haproxyLog()).isTrue();
                        return overUnix.serverStates().size() == 2 && overTcp.serverStates().size() == 2;
                    });
        } catch (Throwable e) {
            stopHaproxy();
            throw e;
        }
    }

    @AfterAll
    void stopHaproxy() throws IOException {
        try {
            if (haproxy != null) {
                try {
                    haproxy.close(); // SIGTERM to this pid only, SIGKILL after the grace period
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                System.out.println("HaproxyRuntimeApiIT: haproxy log:\n" + haproxyLog());
                haproxy = null;
            }
        } finally {
            slowRelease.countDown();
            for (HttpServer server : backends) {
                server.stop(0);
            }
            backends.clear();
            if (backendThreads != null) {
                backendThreads.shutdownNow();
            }
            if (dir != null) {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
                dir = null;
            }
        }
    }

    @BeforeEach
    void bothInRotation() {
        overUnix.ready("node-1");
        overUnix.ready("node-2");
        awaitInRotation("node-1", "node-2");
    }

    @Test
    void bothServersServeWhileReady() throws IOException {
        assertThat(serversHit(10)).containsExactlyInAnyOrder("s1", "s2");
    }

    @Test
    void drainOverTheUnixSocketTakesTheServerOutOfRotationAndReadyPutsItBack() throws IOException {
        overUnix.drain("node-1");
        assertThat(overUnix.serverState("node-1").adminState()).isEqualTo(AdminState.DRAIN);
        assertThat(overUnix.serverState("node-1").inRotation()).isFalse();
        assertThat(overUnix.serverState("node-2").adminState()).isEqualTo(AdminState.READY);
        assertThat(serversHit(12)).containsExactly("s2");

        overUnix.drain("node-1"); // idempotent
        assertThat(overTcp.serverState("node-1").adminState()).isEqualTo(AdminState.DRAIN);

        overUnix.ready("node-1");
        assertThat(overUnix.serverState("node-1").adminState()).isEqualTo(AdminState.READY);
        awaitInRotation("node-1");
        assertThat(serversHit(12)).containsExactlyInAnyOrder("s1", "s2");
    }

    @Test
    void maintOverTcpWorksToo() throws IOException {
        overTcp.drain("node-2");
        assertThat(overTcp.serverState("node-2").adminState()).isEqualTo(AdminState.MAINT);
        assertThat(serversHit(12)).containsExactly("s1");

        overTcp.ready("node-2");
        assertThat(overTcp.serverState("node-2").adminState()).isEqualTo(AdminState.READY);
        awaitInRotation("node-2");
        assertThat(serversHit(12)).containsExactlyInAnyOrder("s1", "s2");
    }

    @Test
    void aRequestInFlightOnADrainedServerFinishes() throws Exception {
        slowOn.set(null);
        slowArrived = new CountDownLatch(1);
        slowRelease = new CountDownLatch(1);
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<String> slow = client.submit(() -> get("/slow"));
            assertThat(slowArrived.await(5, TimeUnit.SECONDS)).as("the slow request reached a server").isTrue();
            String busy = slowOn.get();
            String node = busy.equals("s1") ? "node-1" : "node-2";
            String other = busy.equals("s1") ? "s2" : "s1";

            overUnix.drain(node);
            assertThat(serversHit(6)).containsExactly(other);
            slowRelease.countDown();
            assertThat(slow.get(5, TimeUnit.SECONDS)).isEqualTo(busy);
        } finally {
            slowRelease.countDown();
            client.shutdownNow();
        }
    }

    @Test
    void anUnknownServerOrBackendIsAClearError() {
        RuntimeApiEndpoint endpoint = overUnix.endpoint();
        HaproxyRuntimeApi wrong = HaproxyRuntimeApi.builder(endpoint)
                .server("ghost", "be/nope")
                .server("lost", "nobackend/s1")
                .build();
        assertThatThrownBy(() -> wrong.drain("ghost"))
                .isInstanceOf(LoadBalancerException.class)
                .hasMessageContaining("node 'ghost' (be/nope): 'set server be/nope state drain' answered: No such server.");
        assertThatThrownBy(() -> wrong.ready("lost"))
                .isInstanceOf(LoadBalancerException.class)
                .hasMessageContaining("node 'lost' (nobackend/s1): 'set server nobackend/s1 state ready' answered: No such backend.");
        assertThatThrownBy(() -> wrong.serverState("ghost"))
                .isInstanceOf(LoadBalancerException.class)
                .hasMessageContaining("does not list server nope");
        assertThatThrownBy(() -> wrong.serverState("lost"))
                .isInstanceOf(LoadBalancerException.class)
                .hasMessageContaining("Can't find backend");
    }

    @Test
    void aSocketWithoutAdminLevelIsRefusedWithAHint() {
        HaproxyRuntimeApi userLevel = HaproxyRuntimeApi.builder(RuntimeApiEndpoint.tcp("127.0.0.1", userLevelPort))
                .server("node-1", "be/s1").build();
        assertThatThrownBy(() -> userLevel.drain("node-1"))
                .isInstanceOf(LoadBalancerException.class)
                .hasMessageContaining("Permission denied")
                .hasMessageContaining("level admin");
        assertThat(overUnix.serverState("node-1").adminState()).isEqualTo(AdminState.READY);
    }

    // ---- helpers ----

    private void awaitInRotation(String... nodes) {
        await("servers back in rotation").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                .until(() -> Stream.of(nodes).allMatch(n -> overUnix.serverState(n).inRotation()));
    }

    /** The set of servers that answered {@code n} requests through the frontend, each on its own connection. */
    private Set<String> serversHit(int n) throws IOException {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < n; i++) {
            seen.add(get("/"));
        }
        return seen;
    }

    /** One GET through HAProxy on a fresh connection; returns the body (the server's name), fails on non-200. */
    private String get(String path) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), frontendPort), 2_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: blade\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(response).as("response to GET %s", path).startsWith("HTTP/1.1 200");
            return response.substring(response.indexOf("\r\n\r\n") + 4);
        }
    }

    private int startBackend(String name) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (exchange.getRequestURI().getPath().equals("/slow")) {
                    slowOn.set(name);
                    slowArrived.countDown();
                    try {
                        slowRelease.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] body = name.getBytes(StandardCharsets.US_ASCII);
                exchange.getResponseHeaders().set("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        server.setExecutor(backendThreads);
        server.start();
        backends.add(server);
        return server.getAddress().getPort();
    }

    private String haproxyLog() {
        try {
            return log == null || !Files.exists(log) ? "(no log)" : Files.readString(log);
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private static String version(Path binary) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(binary.toString(), "-v").redirectErrorStream(true).start();
        try (InputStream in = p.getInputStream()) {
            String out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(5, TimeUnit.SECONDS);
            return out.lines().findFirst().orElse("(no version)");
        } finally {
            p.destroy();
        }
    }
}
