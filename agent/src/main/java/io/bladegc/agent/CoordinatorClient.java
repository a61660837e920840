package io.bladegc.agent;

import com.fasterxml.jackson.jr.ob.JSON;
import io.bladegc.agent.CoordinatorException.Kind;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's side of the coordinator's HTTP/JSON API ({@code /v1/nodes/{id}/...}): join, heartbeat, leave,
 * acquire (long poll), release, renew, cancel. HTTP/1.1 through the JDK's {@link HttpClient}; JSON through
 * jackson-jr (shaded into the agent jar). Every call is bounded: connecting and each answer by
 * {@code coordinatorTimeout}; a failure is a {@link CoordinatorException} saying what kind it was, never a hang.
 * Mutating calls (all of them: the API has only POSTs) carry {@code Authorization: Bearer <token>} when a token is
 * configured; the token appears in no message.
 *
 * <p>Thread-safe: one client serves the coordination and heartbeat threads at once. Its I/O runs on daemon threads
 * named {@code blade-coordinator-http-N}.
 */
final class CoordinatorClient implements AutoCloseable {
    /** Extra time a caller waits beyond the HTTP timeout before giving up on its own. */
    static final Duration GRACE = Duration.ofMillis(100);
    private static final int MAX_MESSAGE = 200;

    private final URI nodeBase;
    private final String authorization;
    private final Duration timeout;
    private final ExecutorService executor;
    private final HttpClient http;

    /**
     * @param coordinator the base URL, e.g. {@code http://127.0.0.1:7070} (no trailing slash)
     * @param nodeId      this node's id, a valid URL path segment ({@link io.bladegc.api.BladeOptions#NODE_ID})
     * @param token       the shared secret, or {@code null}
     * @param timeout     the bound on connecting and on each answer
     */
    CoordinatorClient(URI coordinator, String nodeId, String token, Duration timeout) {
        this.nodeBase = URI.create(coordinator + "/v1/nodes/" + nodeId + "/");
        this.authorization = token == null ? null : "Bearer " + token;
        this.timeout = timeout;
        AtomicInteger n = new AtomicInteger();
        // threads only while calls are in flight (a handful at most), gone after 30 s idle
        this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
            r -> {
                Thread t = new Thread(r, "blade-coordinator-http-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        this.http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(executor)
            .build();
    }

    /** @return the bound on connecting and on each answer */
    Duration timeout() {
        return timeout;
    }

    /** Joins the cluster (idempotent: also a heartbeat). */
    void join() throws CoordinatorException {
        await(post("join", null, timeout));
    }

    /** Says the node is alive; {@link Kind#UNKNOWN_NODE} means join again. */
    void heartbeat() throws CoordinatorException {
        await(post("heartbeat", null, timeout));
    }

    /** Leaves the cluster; a grant held is given back. */
    void leave() throws CoordinatorException {
        await(post("leave", null, timeout));
    }

    /**
     * Asks for a slot for GC request {@code gcId}. The coordinator answers at once when it grants, else holds the
     * call up to {@code waitMillis} and answers with the queue position (or {@code CANCELLED} when the request was
     * withdrawn meanwhile). The answer must come within {@code coordinatorTimeout} (keep {@code waitMillis} well below
     * it), else the future fails with {@link Kind#TIMEOUT}.
     *
     * <p>The lease is timed on this JVM's {@link System#nanoTime()} clock, never by comparing clocks: it ends
     * {@code remainingMillis} (the coordinator's "deadline minus now" when it answered) after the moment this call was
     * sent, which is no later than the real end. Without {@code remainingMillis}, {@code deadline - now} from the same
     * answer; with neither {@code now} nor {@code remainingMillis}, {@code deadline} is read as wall-clock time.
     *
     * @param gcId       the {@link io.bladegc.api.GcRequest#id()}
     * @param leadMillis how long until the JVM collects on its own (urgency: least first)
     * @param waitMillis how long the coordinator may hold the call before answering "queued"
     * @return the answer; fails with {@link CoordinatorException}
     */
    CompletableFuture<AcquireAnswer> acquire(long gcId, long leadMillis, long waitMillis) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("gcId", gcId);
        body.put("leadMillis", leadMillis);
        body.put("waitMillis", waitMillis);
        long sentNanos = System.nanoTime();
        return post("acquire", body, timeout).thenApply(r -> {
            try {
                return acquireAnswer(r, sentNanos);
            } catch (CoordinatorException e) {
                throw new CompletionException(e);
            }
        });
    }

    /**
     * Gives the grant back after collecting; {@link Kind#STALE_EPOCH} means the lease had ended already.
     *
     * @param epoch       the grant's epoch
     * @param pauseMillis the measured pause, for the coordinator's record
     */
    void release(long epoch, long pauseMillis) throws CoordinatorException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("epoch", epoch);
        body.put("pauseMillis", pauseMillis);
        await(post("release", body, timeout));
    }

    /** Extends the grant's lease; {@link Kind#STALE_EPOCH} means it had ended already. */
    void renew(long epoch) throws CoordinatorException {
        await(post("renew", Map.of("epoch", epoch), timeout));
    }

    /** Withdraws GC request {@code gcId}: out of the queue, and a grant made for it is given back. */
    void cancel(long gcId) throws CoordinatorException {
        await(post("cancel", Map.of("gcId", gcId), timeout));
    }

    /** Sends a cancel and does not wait for it (best effort: used when failing open). */
    void cancelQuietly(long gcId) {
        post("cancel", Map.of("gcId", gcId), timeout);
    }

    /**
     * Loads and exercises the JSON code once, so that the first GC event does not pay for it. Call it off the
     * application's start path (the heartbeat thread does, before its first join).
     */
    void warmUp() {
        try {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("gcId", 1L);
            m.put("status", "QUEUED");
            JSON.std.mapFrom(JSON.std.asString(m));
        } catch (IOException | RuntimeException e) {
            // the real calls will say what is wrong
        }
    }

    /** Lets the I/O threads end; calls still in flight may fail. */
    @Override
    public void close() {
        executor.shutdown();
    }

    /** @return the decoded JSON body of a 2xx answer; fails with {@link CoordinatorException} */
    private CompletableFuture<Reply> post(String op, Map<String, Object> body, Duration callTimeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(nodeBase.resolve(op))
            .timeout(callTimeout)
            .header("Accept", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        try {
            if (body == null) {
                b.POST(HttpRequest.BodyPublishers.noBody());
            } else {
                b.header("Content-Type", "application/json");
                b.POST(HttpRequest.BodyPublishers.ofString(JSON.std.asString(body), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new CoordinatorException(Kind.BAD_ANSWER, -1,
                op + ": cannot write JSON: " + oneLine(e.getMessage())));
        }
        CompletableFuture<HttpResponse<String>> sent;
        try {
            sent = http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new CoordinatorException(Kind.UNREACHABLE, -1,
                op + ": " + describe(e)));
        }
        return sent.handle((response, failure) -> {
            if (failure != null) {
                throw new CompletionException(transportFailure(op, failure));
            }
            int status = response.statusCode();
            if (status / 100 == 2) {
                return new Reply(op, status, response.body());
            }
            throw new CompletionException(statusFailure(op, status, response.body()));
        });
    }

    /** A 2xx answer, its body undecoded until asked for. */
    private record Reply(String op, int status, String body) {
        Map<String, Object> json() throws CoordinatorException {
            try {
                Map<String, Object> m = JSON.std.mapFrom(body);
                if (m == null) {
                    throw new IOException("empty body");
                }
                return m;
            } catch (IOException | RuntimeException e) {
                throw new CoordinatorException(Kind.BAD_ANSWER, status, op + ": the answer is not the JSON object "
                    + "expected: " + oneLine(e.getMessage()));
            }
        }
    }

    private static AcquireAnswer acquireAnswer(Reply r, long sentNanos) throws CoordinatorException {
        long receivedNanos = System.nanoTime();
        long receivedWall = System.currentTimeMillis();
        Map<String, Object> m = r.json();
        Object status = m.get("status");
        if ("GRANTED".equals(status)) {
            long epoch = number(m, "epoch", true);
            long end;
            if (m.get("remainingMillis") != null) {
                end = sentNanos + millisToNanos(number(m, "remainingMillis", true));
            } else if (m.get("now") != null) {
                end = sentNanos + millisToNanos(number(m, "deadline", true) - number(m, "now", true));
            } else {
                end = receivedNanos + millisToNanos(number(m, "deadline", true) - receivedWall);
            }
            return AcquireAnswer.granted(epoch, end);
        }
        if ("QUEUED".equals(status)) {
            long position = m.get("position") == null ? 0 : number(m, "position", false);
            return AcquireAnswer.queued((int) Math.max(0, Math.min(Integer.MAX_VALUE, position)));
        }
        if ("CANCELLED".equals(status)) {
            return AcquireAnswer.cancelledAnswer();
        }
        throw new CoordinatorException(Kind.BAD_ANSWER, r.status(), "acquire: unexpected status "
            + oneLine(String.valueOf(status)) + " (expected GRANTED, QUEUED or CANCELLED)");
    }

    private static long number(Map<String, Object> m, String field, boolean required) throws CoordinatorException {
        Object v = m.get(field);
        if (v instanceof Number n && (v instanceof Integer || v instanceof Long || v instanceof java.math.BigInteger)) {
            return n.longValue();
        }
        if (v == null && !required) {
            return 0;
        }
        throw new CoordinatorException(Kind.BAD_ANSWER, 200, "acquire: field '" + field + "' is "
            + (v == null ? "missing" : "not an integer: " + oneLine(String.valueOf(v))));
    }

    private static long millisToNanos(long millis) {
        long bound = Long.MAX_VALUE / 4 / 1_000_000L; // an absurd deadline must not overflow the nanoTime arithmetic
        return Math.max(-bound, Math.min(bound, millis)) * 1_000_000L;
    }

    private static CoordinatorException transportFailure(String op, Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof CoordinatorException ce) {
            return ce;
        }
        if (t instanceof HttpTimeoutException) {
            return new CoordinatorException(Kind.TIMEOUT, -1, op + ": no answer within the coordinator timeout ("
                + describe(t) + ")");
        }
        return new CoordinatorException(Kind.UNREACHABLE, -1, op + ": " + describe(t));
    }

    /**
     * Names a failure status. The JSON {@code status} tells apart what one HTTP status covers: 404
     * {@code UNKNOWN_NODE} (join again) from {@code NOT_FOUND} (no such endpoint: a wrong coordinator URL), 409
     * {@code STALE_EPOCH} from {@code REJECTED} (e.g. an acquire while the node still holds a grant).
     */
    private static CoordinatorException statusFailure(String op, int status, String body) {
        Map<String, Object> json = jsonOrNull(body);
        Object named = json == null ? null : json.get("status");
        Kind kind = switch (status) {
            case 404 -> "NOT_FOUND".equals(named) ? Kind.BAD_ANSWER : Kind.UNKNOWN_NODE;
            case 409 -> "REJECTED".equals(named) ? Kind.REJECTED : Kind.STALE_EPOCH;
            case 400 -> Kind.REJECTED;
            case 401, 403 -> Kind.UNAUTHORIZED;
            default -> Kind.BAD_ANSWER;
        };
        return new CoordinatorException(kind, status, op + ": HTTP " + status + errorText(json, body));
    }

    private static Map<String, Object> jsonOrNull(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return JSON.std.mapFrom(body);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** @return {@code ": <message>"} from a JSON error body ({@code message} or {@code error}), or the raw text */
    private static String errorText(Map<String, Object> json, String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        for (String key : new String[] {"message", "error"}) {
            if (json != null && json.get(key) != null) {
                return ": " + oneLine(String.valueOf(json.get(key)));
            }
        }
        return ": " + oneLine(body);
    }

    static String describe(Throwable t) {
        String m = t.getMessage();
        String name = t.getClass().getSimpleName();
        return m == null || m.isBlank() ? name : name + ": " + oneLine(m);
    }

    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String line = s.replaceAll("[\\p{Cntrl}\\s]+", " ").trim();
        return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE) + "...";
    }

    /** Waits for a call, bounded by the timeout plus {@link #GRACE}, and unwraps its failure. */
    private <T> T await(CompletableFuture<T> call) throws CoordinatorException {
        return await(call, timeout.plus(GRACE));
    }

    /**
     * Waits for a call, bounded, and unwraps its failure.
     *
     * @return the call's value
     * @throws CoordinatorException what went wrong; {@link Kind#TIMEOUT} when {@code bound} passed
     */
    static <T> T await(CompletableFuture<T> call, Duration bound) throws CoordinatorException {
        try {
            return call.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CompletionException e) {
            throw unwrap(e);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new CoordinatorException(Kind.TIMEOUT, -1, "no answer within " + bound.toMillis() + " ms");
        } catch (CancellationException e) {
            throw new CoordinatorException(Kind.TIMEOUT, -1, "the call was abandoned");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.cancel(true);
            throw new CoordinatorException(Kind.TIMEOUT, -1, "interrupted while waiting for the coordinator");
        }
    }

    /** @return the {@link CoordinatorException} behind a failed call's exception */
    static CoordinatorException unwrap(Throwable e) {
        return transportFailure("call", e);
    }
}
