package io.bladegc.grpc;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.Gate;
import io.bladegc.api.RetryAfter;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Puts a gRPC server's calls through the Blade node's {@link Gate}: a call admitted by the open gate is in flight
 * from {@link #interceptCall} until its listener's {@code onComplete} or {@code onCancel} (a streaming call once, for
 * its whole life; a call the server closes with an error or whose handler throws ends in one of them too), so the
 * node's drain waits for it and never cuts it. While the gate is closed a new call is closed at once with
 * {@link Status#UNAVAILABLE}, a description saying Blade collects, and the trailer {@value #RETRY_PUSHBACK_MS_NAME}.
 * A gRPC client with a retry policy for {@code UNAVAILABLE} waits that many milliseconds and tries again, on whichever
 * backend its load balancer picks next; see {@code docs/grpc.md}. The pushback is {@code 0} when the node is
 * coordinated ({@link BladeNode#coordinated()}) and the call is a first attempt: other nodes serve while it collects,
 * and a retry sent to one of them at once is answered at once, where waiting would add the whole pause to the call.
 * Otherwise it is the node's retry hint: its pause model's expected pause plus the drain, rounded up as the servlet
 * filter's {@code Retry-After} ({@link RetryAfter}). That is what a node on its own (single-node, GCI mode) sends,
 * and what a coordinated node sends to a retry (the client's header {@value #PREVIOUS_ATTEMPTS_NAME} names one): a
 * client whose retry came back to the collecting node may have no other (one connection through a layer-4 proxy, a
 * Kubernetes service), and must not spend its attempts in the same few milliseconds.
 *
 * <pre>{@code
 * BladeServerInterceptor blade = BladeServerInterceptor.start(BladeOptions.defaults());
 * Server server = ServerBuilder.forPort(8080)
 *     .addService(ServerInterceptors.intercept(new MyService(), blade))
 *     .build().start();
 * }</pre>
 *
 * <p>{@link #start} joins the JVM's Blade node (the agent's, or a servlet filter's) or starts one (GCI mode), as the
 * servlet filter does ({@link Blade#joinOrStart}). It never throws for a node it cannot reach: the interceptor is then
 * a pass-through that never sheds, with one log line saying why. Intercept every service of the application with the
 * same instance, but not the health service (see {@link BladeHealth}), and add it last so that it runs first
 * ({@link io.grpc.ServerInterceptors#intercept} calls the last one first): the other interceptors' work is then inside
 * the call's time in flight, and a shed call costs none of it.
 *
 * <p>Thread-safe: {@link #interceptCall} runs on any number of threads; {@link #close} is meant to be called once, when
 * the server has shut down.
 */
public final class BladeServerInterceptor implements ServerInterceptor, AutoCloseable {
    /** The name of the trailer that tells gRPC clients when to retry: {@value}. */
    public static final String RETRY_PUSHBACK_MS_NAME = "grpc-retry-pushback-ms";

    /** The header by which a gRPC client marks a retry (gRFC A6): the number of attempts before this one. */
    public static final String PREVIOUS_ATTEMPTS_NAME = "grpc-previous-rpc-attempts";

    private static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
        Metadata.Key.of(PREVIOUS_ATTEMPTS_NAME, Metadata.ASCII_STRING_MARSHALLER);

    /** The trailer {@value #RETRY_PUSHBACK_MS_NAME} of a shed call: whole milliseconds, ASCII. */
    public static final Metadata.Key<String> RETRY_PUSHBACK_MS =
        Metadata.Key.of(RETRY_PUSHBACK_MS_NAME, Metadata.ASCII_STRING_MARSHALLER);

    private static final System.Logger LOG = System.getLogger(BladeServerInterceptor.class.getName());

    private final AtomicReference<BladeNode> node;
    private final LongAdder shed = new LongAdder();

    /** @param node a node whose gate this interceptor attached to, or {@code null} for a pass-through */
    BladeServerInterceptor(BladeNode node) {
        this.node = new AtomicReference<>(node);
    }

    /**
     * Joins the JVM's Blade node, or starts one with {@code options} (GCI mode), and attaches to its gate. Never
     * throws for the node: {@code enabled=false}, an agent that left Blade off ({@link Blade#AGENT_OFF_PROPERTY}) or
     * a node that cannot start leave a pass-through that never sheds, with one log line saying why.
     *
     * @param options settings for a new node; ignored, but for {@code enabled}, when a node runs already (its own
     *                options apply)
     * @return the interceptor
     * @throws NullPointerException when {@code options} is null
     */
    public static BladeServerInterceptor start(BladeOptions options) {
        return new BladeServerInterceptor(Blade.attachEntry(options, LOG, "Blade gRPC interceptor", "call")
            .orElse(null));
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                      ServerCallHandler<Q, A> next) {
        BladeNode n = node.get();
        if (n == null) {
            return next.startCall(call, headers);
        }
        Gate gate = n.gate();
        if (!gate.tryEnter()) {
            shed(n, call, headers);
            return new ServerCall.Listener<>() {
            };
        }
        ServerCall.Listener<Q> listener;
        try {
            listener = next.startCall(call, headers);
        } catch (RuntimeException | Error e) {
            gate.exit(); // no listener, so no onComplete or onCancel will come for this call
            throw e;
        }
        return new InFlightCall<>(listener, gate);
    }

    private void shed(BladeNode n, ServerCall<?, ?> call, Metadata headers) {
        shed.increment();
        boolean othersServe = n.coordinated() && headers.get(PREVIOUS_ATTEMPTS) == null;
        long millis = othersServe ? 0 : RetryAfter.millis(RetryAfter.nanos(() -> n.retryAfter().toNanos()));
        Metadata trailers = new Metadata();
        trailers.put(RETRY_PUSHBACK_MS, Long.toString(millis));
        call.close(Status.UNAVAILABLE.withDescription(othersServe
            ? "Blade: collecting garbage; retry on another backend"
            : "Blade: collecting garbage; retry after " + millis + " ms"), trailers);
    }

    /** @return calls this interceptor closed {@code UNAVAILABLE} because the gate was closed */
    public long shedCount() {
        return shed.sum();
    }

    /** @return calls and requests in flight through the node's gate (every entry of the node); 0 for a pass-through */
    public long inFlight() {
        Gate g = gate();
        return g == null ? 0 : g.inFlight();
    }

    /** @return whether the gate admits new calls; always {@code true} for a pass-through */
    public boolean isGateOpen() {
        Gate g = gate();
        return g == null || g.isOpen();
    }

    /** @return the node's gate, or {@code null} for a pass-through */
    Gate gate() {
        BladeNode n = node.get();
        return n == null ? null : n.gate();
    }

    /** @return whether calls are only passed on (disabled, no node, or closed) */
    public boolean isPassThrough() {
        return node.get() == null;
    }

    /**
     * Detaches from the node's gate; from then on calls are passed through. Calls in flight leave the gate as usual.
     * The node itself goes on (the agent's, or {@link Blade#stopNode()} for one this JVM's Blade started). Idempotent.
     */
    @Override
    public void close() {
        BladeNode n = node.getAndSet(null);
        if (n != null) {
            n.detachGate();
        }
    }
}
