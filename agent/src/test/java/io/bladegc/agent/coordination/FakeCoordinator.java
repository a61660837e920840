package io.bladegc.agent.coordination;

import com.fasterxml.jackson.jr.ob.JSON;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A coordinator for tests: the {@code /v1/nodes/{id}/{op}} API on loopback (JDK {@link HttpServer}), answering from a
 * script and recording every call. By default join, heartbeat, leave, release, renew and cancel answer 200 and
 * acquire grants at once with epochs 7, 8, ... and a 10 s lease. It can stop (connection refused), start again on
 * the same port, black-hole a call (accept it, never answer), and answer as a replica of a replicated coordinator
 * that is not the leader. Its answers have the real coordinator's shape ({@code coordinator/API.md}), its clock an
 * hour ahead of the wall clock, so that a node comparing clocks would notice. Thread-safe.
 */
public final class FakeCoordinator implements AutoCloseable {
    static {
        // the JDK server writes headers and body apart: without TCP_NODELAY, Nagle and delayed ACKs add ~40 ms
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** One call as the coordinator saw it. */
    public record Call(String node, String op, Map<String, Object> body, String authorization, String contentType,
                long nanos, String memberKey) {
        public long longField(String name) {
            return ((Number) body.get(name)).longValue();
        }
    }

    /** A scripted answer. */
    public record Reply(int status, String body, long delayMillis, boolean blackHole) {
        public static Reply ok() {
            return new Reply(200, "{\"status\":\"OK\"}", 0, false);
        }

        public static Reply status(int status, String body) {
            return new Reply(status, body, 0, false);
        }

        /** A grant as the coordinator answers it: its clock, deadline, and the lease left. */
        public static Reply granted(long epoch, long remainingMillis) {
            long now = System.currentTimeMillis() + CLOCK_AHEAD_MILLIS;
            return new Reply(200, "{\"status\":\"GRANTED\",\"node\":\"n\",\"gcId\":1,\"epoch\":" + epoch
                + ",\"grantedAt\":" + now + ",\"deadline\":" + (now + remainingMillis) + ",\"remainingMillis\":"
                + remainingMillis + ",\"now\":" + now + "}", 0, false);
        }

        public static Reply queued(int position) {
            return new Reply(200, "{\"status\":\"QUEUED\",\"position\":" + position + "}", 0, false);
        }

        public static Reply blackHoled() {
            return new Reply(0, null, 0, true);
        }

        public Reply after(long millis) {
            return new Reply(status, body, millis, blackHole);
        }
    }

    /** The fake coordinator's clock runs this far ahead of the wall clock. */
    public static final long CLOCK_AHEAD_MILLIS = 3_600_000;

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Map<String, Function<Call, Reply>> script = new ConcurrentHashMap<>();
    private final AtomicLong epoch = new AtomicLong(6);
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-coordinator");
        t.setDaemon(true);
        return t;
    });
    private volatile int port;
    private volatile HttpServer server;
    private volatile CountDownLatch holes = new CountDownLatch(1);

    private FakeCoordinator(int port) throws IOException {
        this.port = port;
        bind();
    }

    /** @return a fake listening on a free loopback port */
    public static FakeCoordinator start() throws IOException {
        return new FakeCoordinator(0);
    }

    private void bind() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        s.setExecutor(executor);
        s.createContext("/", this::handle);
        s.start();
        port = s.getAddress().getPort();
        server = s;
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** Stops listening: calls are refused; black-holed calls are dropped. */
    public void stop() {
        server.stop(0);
        holes.countDown();
        holes = new CountDownLatch(1);
    }

    /** Listens again on the same port. */
    public void restart() throws IOException {
        bind();
    }

    /** Every operation of the node API. */
    public static final List<String> OPS = List.of("join", "heartbeat", "leave", "acquire", "release", "renew", "cancel");

    /** The answer of a coordinator replica that is not the Raft leader. */
    public static final Reply NOT_LEADER = Reply.status(503, "{\"error\":\"NOT_LEADER\",\"message\":\"this coordinator "
        + "replica is not the leader; try another\"}");

    /** Makes every operation answer as a replica that is not the leader ({@link #NOT_LEADER}), or as the leader. */
    public void leader(boolean leader) {
        for (String op : OPS) {
            if (leader) {
                script.remove(op);
            } else {
                script.put(op, c -> NOT_LEADER);
            }
        }
    }

    /** Scripts the answers to one operation. */
    public void on(String op, Function<Call, Reply> reply) {
        script.put(op, reply);
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    public List<Call> calls(String op) {
        return calls.stream().filter(c -> c.op().equals(op)).toList();
    }

    private Reply defaultReply(Call c) {
        if (c.op().equals("acquire")) {
            return Reply.granted(epoch.incrementAndGet(), 10_000);
        }
        return Reply.ok();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String[] parts = ex.getRequestURI().getPath().split("/");
            // "", "v1", "nodes", id, op
            if (parts.length != 5 || !parts[1].equals("v1") || !parts[2].equals("nodes")) {
                send(ex, 404, "{\"message\":\"no such path\"}");
                return;
            }
            if (!ex.getRequestMethod().equals("POST")) {
                send(ex, 405, "{\"message\":\"POST only\"}");
                return;
            }
            String text = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Map<String, Object> body = text.isBlank() ? Map.of() : JSON.std.mapFrom(text);
            Call call = new Call(parts[3], parts[4], body, ex.getRequestHeaders().getFirst("Authorization"),
                ex.getRequestHeaders().getFirst("Content-Type"), System.nanoTime(),
                ex.getRequestHeaders().getFirst(CoordinatorClient.MEMBER_KEY_HEADER));
            calls.add(call);
            Reply r = script.getOrDefault(call.op(), this::defaultReply).apply(call);
            if (r.blackHole()) {
                CountDownLatch hole = holes;
                hole.await(); // never answer; dropped at stop() or close()
                return;
            }
            if (r.delayMillis() > 0) {
                Thread.sleep(r.delayMillis());
            }
            send(ex, r.status(), r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            send(ex, 500, "{\"message\":\"" + e + "\"}");
        }
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        holes.countDown();
        executor.shutdownNow();
    }
}
