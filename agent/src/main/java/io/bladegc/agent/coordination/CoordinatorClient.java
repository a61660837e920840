package io.bladegc.agent.coordination;

import io.bladegc.api.slot.Ask;
import static io.bladegc.agent.coordination.CoordinatorAnswers.acquireAnswer;
import static io.bladegc.agent.coordination.CoordinatorAnswers.oneLine;
import static io.bladegc.agent.coordination.CoordinatorAnswers.statusFailure;
import static io.bladegc.agent.coordination.CoordinatorAnswers.transportFailure;
import static io.bladegc.agent.coordination.CoordinatorAnswers.unwrap;

import com.fasterxml.jackson.jr.ob.JSON;
import io.bladegc.agent.coordination.CoordinatorAnswers.Reply;
import io.bladegc.agent.coordination.CoordinatorException.Kind;
import io.bladegc.api.grant.SlotAnswer;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The node's side of the coordinator's HTTP/JSON API ({@code /v1/nodes/{id}/...}): join, heartbeat, leave,
 * acquire (long poll), release, renew, cancel. HTTP/1.1, one connection per call ({@link BoundedExchange}); JSON
 * through jackson-jr (shaded into the agent jar). Every call is bounded: each attempt, from connecting to the last
 * byte of the answer, by {@code coordinatorTimeout}, each answer to 16 KiB of headers and 64 KiB of body, and a call
 * abandoned (its future cancelled, or not answered within its bound) has its connection closed; a failure is a
 * {@link CoordinatorException} saying what kind it was, never a hang.
 * Mutating calls (all of them: the API has only POSTs) carry {@code Authorization: Bearer <token>} when a token is
 * configured; the token appears in no message. Every call also carries this node's member key
 * ({@code Blade-Member-Key}, made at random for this client): the proof that it is the process that joined as this
 * node, so that no other caller can cancel its grant or make it leave (coordinator/API.md, "Member keys").
 *
 * <p><b>Replicas.</b> A replicated coordinator has several replicas sharing one ledger; only the Raft leader serves
 * node calls, the others answer {@code 503 NOT_LEADER}. A call goes to the replica that last answered; when that one
 * refuses the connection, does not answer within the timeout, or answers {@code NOT_LEADER}, the same call goes to the
 * next replica in the configured order (round robin), each replica at most once. The first replica that answers
 * anything else (a success, or a refusal such as {@code 409} or {@code 503 UNAVAILABLE}, which keep their meaning)
 * becomes the one the node talks to: a switch is logged at INFO once and counted in
 * {@link CoordinationCounters#failovers}. Membership, grant and epoch hold at every replica, so nothing is sent again
 * beyond the call itself. Only when no replica answered does the call fail, with the last replica's
 * {@link Kind} ({@link Kind#UNREACHABLE}, {@link Kind#TIMEOUT} or {@link Kind#NOT_LEADER}: "coordinator down"). A call
 * that timed out at one replica may have been applied there before the next replica is asked: join, heartbeat, cancel,
 * leave and acquire are idempotent; a release or renewal so repeated answers {@link Kind#STALE_EPOCH} or extends the
 * lease once more.
 *
 * <p><b>Time bound.</b> Each attempt is bounded by {@code coordinatorTimeout}, so a call takes at most
 * {@link #callBound()}: the number of replicas times the timeout, plus {@link #GRACE}. {@link #acquire} is the
 * exception: its attempts share one timeout (each later attempt gets what is left of it, and long-polls only for what
 * is left of the wait asked for), so that a node waiting for a slot fails open no later than with a single
 * coordinator, whatever the number of replicas. Refused connections and {@code NOT_LEADER} answers take milliseconds,
 * so an acquire still reaches the leader when other replicas are down or followers; a replica that does not answer
 * uses the acquire's time up, and the heartbeat thread's next join (which has the full bound) finds the leader.
 *
 * <p>Thread-safe: one client serves the coordination and heartbeat threads at once. Its I/O runs on daemon threads
 * named {@code blade-coordinator-http-N}, at most {@value #MAX_THREADS}, each busy no longer than one attempt.
 */
final class CoordinatorClient implements AutoCloseable {
    /** Extra time a caller waits beyond the HTTP timeout before giving up on its own. */
    static final Duration GRACE = Duration.ofMillis(100);
    /** The largest {@code dueInMillis} a heartbeat may carry (one day, coordinator/API.md). */
    static final long MAX_DUE_MILLIS = 86_400_000L;
    /** The most calls out at once; one more fails at once ({@link Kind#UNREACHABLE}). */
    static final int MAX_THREADS = 8;
    /** Less time than this left of an acquire's timeout is not worth another replica. */
    private static final long MIN_ATTEMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The header that carries the member key. */
    static final String MEMBER_KEY_HEADER = "Blade-Member-Key";

    private final List<URI> replicas;
    private final List<URI> nodeBases;
    private final String nodeId;
    private final String authorization;
    /** This node's member key: 128 random bits, base64url. */
    private final String memberKey = newMemberKey();
    private final Duration timeout;
    private final CoordinationCounters counters;
    private final System.Logger log;
    /** The index of the replica that answered last: where calls go first. */
    private final AtomicInteger current = new AtomicInteger();
    private final ExecutorService executor;

    /**
     * @param replicas the base URLs of the coordinator's replicas, e.g. {@code http://127.0.0.1:7070} (no trailing
     *                 slash), at least one, in the order they are tried; the first is tried first
     * @param nodeId   this node's id, a valid URL path segment ({@link io.bladegc.api.BladeOptions#NODE_ID})
     * @param token    the shared secret, or {@code null}
     * @param timeout  the bound on connecting to one replica and on its answer
     * @param counters where switches to another replica are counted
     * @param log      where switches to another replica are logged
     */
    CoordinatorClient(List<URI> replicas, String nodeId, String token, Duration timeout, CoordinationCounters counters,
                      System.Logger log) {
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException("no coordinator");
        }
        this.replicas = List.copyOf(replicas);
        this.nodeBases = this.replicas.stream().map(r -> URI.create(r + "/v1/nodes/" + nodeId + "/")).toList();
        this.nodeId = nodeId;
        this.authorization = token == null ? null : "Bearer " + token;
        this.timeout = timeout;
        this.counters = counters;
        this.log = log;
        AtomicInteger n = new AtomicInteger();
        // threads only while calls are out (a handful at most, each ends by its timeout), gone after 30 s idle
        this.executor = new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
            r -> {
                Thread t = new Thread(r, "blade-coordinator-http-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
    }

    /** @return the bound on connecting to one replica and on its answer */
    Duration timeout() {
        return timeout;
    }

    /**
     * @return the longest a call but {@link #acquire} may take, trying every replica: the number of replicas times
     *     the timeout, plus {@link #GRACE}
     */
    Duration callBound() {
        return timeout.multipliedBy(replicas.size()).plus(GRACE);
    }

    /** @return every replica joined by {@code |}, as the {@code coordinator} option writes them: for log lines */
    String coordinators() {
        return replicas.stream().map(URI::toString).collect(Collectors.joining("|"));
    }

    /** @return the replica calls go to first: the one that answered last */
    URI replica() {
        return replicas.get(current.get());
    }

    /** Joins the cluster (idempotent: also a heartbeat). */
    void join() throws CoordinatorException {
        await(post("join", null));
    }

    /**
     * Says the node is alive and when its JVM expects to collect and to run a full collection; {@link Kind#UNKNOWN_NODE}
     * means join again. A due time beyond
     * {@value #MAX_DUE_MILLIS} ms (a nearly idle JVM) is sent as unknown, which it practically is: the coordinator
     * refuses a larger value, and a refused heartbeat makes the node collect on its own until the next one (seen in the
     * load sweep: 36,733,645,506 ms).
     *
     * @return whether the coordinator invites the node to take its next young collection now (it would come due during
     *     another member's full collection)
     */
    boolean heartbeat(Heartbeat h) throws CoordinatorException {
        Map<String, Object> body = new LinkedHashMap<>();
        if (h.dueInMillis() >= 0 && h.dueInMillis() <= MAX_DUE_MILLIS) {
            body.put("dueInMillis", h.dueInMillis());
        }
        if (h.fullDueInMillis() >= 0 && h.fullDueInMillis() <= MAX_DUE_MILLIS) {
            body.put("fullDueInMillis", h.fullDueInMillis());
        }
        return CoordinatorAnswers.invited(await(post("heartbeat", body.isEmpty() ? null : body)));
    }

    /** Leaves the cluster; a grant held is given back. */
    void leave() throws CoordinatorException {
        await(post("leave", null));
    }

    /**
     * Asks for a slot for GC request {@code gcId}. The coordinator answers at once when it grants, else holds the
     * call up to {@code waitMillis} and answers with the queue position (or {@code CANCELLED} when the request was
     * withdrawn meanwhile). The answer must come within {@code coordinatorTimeout} (keep {@code waitMillis} well below
     * it), else the future fails with {@link Kind#TIMEOUT}. The attempts at several replicas share that one timeout,
     * and a later attempt long-polls only for what is left of {@code waitMillis}, so that the answer comes no later
     * than from a single coordinator.
     *
     * <p>The lease is timed on this JVM's {@link System#nanoTime()} clock, never by comparing clocks: it ends
     * {@code remainingMillis} (the coordinator's "deadline minus now" when it answered) after the moment the attempt
     * that was answered was sent, which is no later than the real end. Without {@code remainingMillis},
     * {@code deadline - now} from the same answer; with neither {@code now} nor {@code remainingMillis},
     * {@code deadline} is read as wall-clock time.
     *
     * @param ask        the request ({@link Ask}): its id, how long until the JVM collects on its own (urgency: least
     *                   first), whether the collection is a full one ({@code "full": true}, sent only then) and its
     *                   expected pause ({@code holdMillis}, sent when known), the pause of a full collection offered in
     *                   place of the young one ({@code fullPauseMillis}, sent when offered)
     * @param waitMillis how long the coordinator may hold the call before answering "queued"
     * @return the answer; fails with {@link CoordinatorException}
     */
    CompletableFuture<SlotAnswer> acquire(Ask ask, long waitMillis) {
        CompletableFuture<Reply> call = new FailoverCall("acquire", true, attemptTimeout -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("gcId", ask.gcId());
            body.put("leadMillis", ask.leadMillis());
            if (ask.full()) {
                body.put("full", true);
            }
            if (ask.holdMillis() > 0) {
                body.put("holdMillis", ask.holdMillis());
            }
            if (ask.fullOfferMillis() > 0) {
                body.put("fullPauseMillis", ask.fullOfferMillis());
            }
            // the long poll ends when it would have at the first replica: a later attempt waits only what is left
            body.put("waitMillis", Math.max(0, waitMillis - timeout.minus(attemptTimeout).toMillis()));
            return body;
        }).start();
        return abandoning(call, call.thenApply(r -> {
            try {
                return acquireAnswer(r);
            } catch (CoordinatorException e) {
                throw new CompletionException(e);
            }
        }));
    }

    /**
     * @param call      a call out
     * @param dependent what is made of its answer
     * @return {@code dependent}, which, when cancelled, cancels {@code call}: its exchange is abandoned
     */
    static <T, U> CompletableFuture<U> abandoning(CompletableFuture<T> call, CompletableFuture<U> dependent) {
        dependent.whenComplete((u, e) -> {
            if (dependent.isCancelled()) {
                call.cancel(true);
            }
        });
        return dependent;
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
        await(post("release", body));
    }

    /** Extends the grant's lease; {@link Kind#STALE_EPOCH} means it had ended already. */
    void renew(long epoch) throws CoordinatorException {
        await(post("renew", Map.of("epoch", epoch)));
    }

    /** Withdraws GC request {@code gcId}: out of the queue, and a grant made for it is given back. */
    void cancel(long gcId) throws CoordinatorException {
        await(post("cancel", Map.of("gcId", gcId)));
    }

    /** Sends a cancel and does not wait for it (best effort: used when failing open). */
    void cancelQuietly(long gcId) {
        post("cancel", Map.of("gcId", gcId));
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

    /**
     * One call to whichever replica serves it, each attempt bounded by the timeout.
     *
     * @return the 2xx answer; fails with {@link CoordinatorException}
     */
    private CompletableFuture<Reply> post(String op, Map<String, Object> body) {
        return new FailoverCall(op, false, attemptTimeout -> body).start();
    }

    /** Whether a failure at one replica sends the call on to the next: that replica cannot serve it. */
    private static boolean failsOver(Kind kind) {
        return kind == Kind.UNREACHABLE || kind == Kind.TIMEOUT || kind == Kind.NOT_LEADER;
    }

    /**
     * One call and its attempts, replica after replica from the current one, until one answers or each was tried
     * once. Thread-safe: each attempt starts when the previous one ended.
     */
    private final class FailoverCall {
        private final String op;
        private final boolean oneTimeout;
        private final long deadlineNanos = System.nanoTime() + timeout.toNanos();
        private final Function<Duration, Map<String, Object>> body;
        private final int first = current.get();
        private final List<String> failures = new ArrayList<>();
        private final CompletableFuture<Reply> result = new CompletableFuture<>();
        /** The attempt out: cancelled when {@link #result} is, so that its exchange is abandoned. */
        private volatile CompletableFuture<Reply> out;

        /**
         * @param op         the operation, the last path segment
         * @param oneTimeout whether all attempts share one timeout (else each has its own)
         * @param body       the body for an attempt with the given timeout ({@code null}: no body)
         */
        FailoverCall(String op, boolean oneTimeout, Function<Duration, Map<String, Object>> body) {
            this.op = op;
            this.oneTimeout = oneTimeout;
            this.body = body;
        }

        CompletableFuture<Reply> start() {
            result.whenComplete((r, e) -> {
                if (result.isCancelled() && out != null) {
                    out.cancel(true);
                }
            });
            attempt(0, timeout);
            return result;
        }

        private void attempt(int tried, Duration attemptTimeout) {
            int index = (first + tried) % replicas.size();
            Map<String, Object> attemptBody = body.apply(attemptTimeout);
            out = send(op, nodeBases.get(index), attemptBody, attemptTimeout);
            if (result.isCancelled()) {
                out.cancel(true);
            }
            out.whenComplete((reply, failure) -> {
                if (failure == null) {
                    answeredBy(index);
                    result.complete(reply);
                    return;
                }
                CoordinatorException e = transportFailure(op, failure);
                if (!failsOver(e.kind())) {
                    answeredBy(index);
                    result.completeExceptionally(e);
                    return;
                }
                failures.add(replicas.get(index) + ": " + CoordinatorAnswers.reason(e));
                long left = oneTimeout ? deadlineNanos - System.nanoTime() : timeout.toNanos();
                if (tried + 1 >= replicas.size() || left < MIN_ATTEMPT_NANOS || result.isDone()) {
                    result.completeExceptionally(replicas.size() == 1 ? e : new CoordinatorException(e.kind(),
                        e.status(), op + ": no coordinator replica served the call (" + String.join("; ", failures)
                        + ")"));
                    return;
                }
                attempt(tried + 1, Duration.ofNanos(Math.min(timeout.toNanos(), left)));
            });
        }

        /** The replica at {@code index} served the call: later calls go there first. */
        private void answeredBy(int index) {
            int before = current.get();
            if (index != before && index != first && current.compareAndSet(before, index)) {
                counters.failovers.increment();
                log.log(Level.INFO, "Blade: node " + nodeId + " now talks to coordinator replica "
                    + replicas.get(index) + " (" + String.join("; ", failures) + ")");
            }
        }
    }

    /**
     * One exchange with one replica, on an I/O thread, bounded by {@code callTimeout} in all ({@link BoundedExchange});
     * cancelling the future returned abandons the exchange (its connection is closed).
     *
     * @return the decoded JSON body of a 2xx answer; fails with {@link CoordinatorException}
     */
    private CompletableFuture<Reply> send(String op, URI nodeBase, Map<String, Object> body, Duration callTimeout) {
        byte[] json;
        try {
            json = body == null ? null : JSON.std.asString(body).getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new CoordinatorException(Kind.BAD_ANSWER, -1,
                op + ": cannot write JSON: " + oneLine(e.getMessage())));
        }
        long sentNanos = System.nanoTime();
        BoundedExchange exchange = new BoundedExchange(nodeBase.resolve(op), authorization, memberKey, json,
            sentNanos + callTimeout.toNanos());
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        reply.whenComplete((r, e) -> {
            if (reply.isCancelled()) {
                exchange.abandon();
            }
        });
        try {
            executor.execute(() -> {
                BoundedExchange.Answer answer;
                try {
                    answer = exchange.run();
                } catch (CoordinatorException e) {
                    reply.completeExceptionally(new CoordinatorException(e.kind(), e.status(),
                        op + ": " + e.getMessage()));
                    return;
                }
                if (answer.status() / 100 == 2) {
                    reply.complete(new Reply(op, answer.status(), answer.body(), sentNanos));
                } else {
                    reply.completeExceptionally(statusFailure(op, answer.status(), answer.body()));
                }
            });
        } catch (RejectedExecutionException e) {
            reply.completeExceptionally(new CoordinatorException(Kind.UNREACHABLE, -1, op + ": "
                + MAX_THREADS + " coordinator calls are out already"));
        }
        return reply;
    }

    private static String newMemberKey() {
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    /** Waits for a call, bounded by {@link #callBound()}, and unwraps its failure. */
    private <T> T await(CompletableFuture<T> call) throws CoordinatorException {
        return await(call, callBound());
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
}
