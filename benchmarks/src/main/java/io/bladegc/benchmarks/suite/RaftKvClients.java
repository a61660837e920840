package io.bladegc.benchmarks.suite;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.retry.ClientRetryEvent;
import org.apache.ratis.client.retry.RequestTypeDependentRetryPolicy;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto.TypeCase;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.protocol.exceptions.TransferLeadershipException;
import org.apache.ratis.retry.ExceptionDependentRetry;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.util.TimeDuration;

/**
 * The one place the {@code raft-kv} load generator's Ratis clients are built ({@link #create}) and make their calls
 * ({@link #call}), with their retry policy ({@link #retryPolicy}); switching to a policy shipped by Blade for Raft
 * changes this class only. Stateless.
 *
 * <p>What happens to a call: a refusal because leadership is moving ({@link #LEADER_CHANGES}: not the leader,
 * stepping down, transferring, newly elected and not ready yet) is sent again at once, to the leader the refusal
 * names when it names one; any other failed attempt (no answer within {@link #ATTEMPT_TIMEOUT}, the connection lost)
 * is sent again after {@link #RESEND_SLEEP}; a {@link StateMachineException} (the store's own error) is not sent
 * again. Nothing is given up before the call's own deadline, {@link #DEADLINE} after it was made, and nothing is sent
 * again after it. Ratis 3.2.2's client asks its retry policy only about failed attempts and the two refusals its gRPC
 * client turns into failures ({@code NotLeaderException}, {@code LeaderNotReadyException}); the others
 * ({@link #REFUSALS_ANSWERED}) come back as the call's answer, so {@link #call} sends those again itself, as new
 * calls: a leader stepping down or transferring refuses before the request reaches its log, so a write resent this
 * way is still applied at most once.
 */
final class RaftKvClients {
    /** How long one attempt waits for its answer: Ratis's default request timeout, set explicitly. */
    static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(3);
    /** How long after the call it is still sent again; a call still unanswered then has timed out. */
    static final Duration DEADLINE = Duration.ofSeconds(10);
    /** The pause before an attempt that failed for another reason than a leader change is sent again. */
    static final Duration RESEND_SLEEP = Duration.ofMillis(20);
    /** The refusals that mean "leadership is moving": sent again at once. */
    static final List<Class<? extends Exception>> LEADER_CHANGES = List.of(NotLeaderException.class,
        LeaderSteppingDownException.class, TransferLeadershipException.class, LeaderNotReadyException.class);
    /** The refusals Ratis's client hands back as the call's answer instead of asking the retry policy. */
    static final List<Class<? extends Exception>> REFUSALS_ANSWERED = List.of(LeaderSteppingDownException.class,
        TransferLeadershipException.class);

    private RaftKvClients() {
    }

    /**
     * @param group    the store's group
     * @param onResend told of every attempt the policy sends again: the client's id and why the attempt failed
     *                 (called on Ratis's threads)
     * @return a client of {@code group} with {@link #retryPolicy}; no connection is made before its first call
     */
    static RaftClient create(RaftGroup group, BiConsumer<ClientId, Throwable> onResend) {
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, duration(ATTEMPT_TIMEOUT));
        RetryPolicy policy = retryPolicy();
        return RaftClient.newBuilder().setRaftGroup(group).setProperties(properties)
            .setRetryPolicy(event -> {
                RetryPolicy.Action action = policy.handleAttemptFailure(event);
                if (action.shouldRetry() && event instanceof ClientRetryEvent e) {
                    onResend.accept(e.getRequest().getClientId(), e.getCause());
                }
                return action;
            })
            .build();
    }

    /**
     * Sends {@code message} on {@code client}: a write ({@code async().send}) or a linearizable read
     * ({@code async().sendReadOnly}); an answer that is one of the {@link #REFUSALS_ANSWERED} is sent again at once as
     * a new call, until {@link #DEADLINE} after the first.
     *
     * @param onResend told of every such new call: the client's id and the refusal (called on Ratis's threads)
     * @return the last call's answer; failed when it failed (a refusal among them, once the deadline passed)
     */
    static CompletableFuture<RaftClientReply> call(RaftClient client, Message message, boolean write,
                                                   BiConsumer<ClientId, Throwable> onResend) {
        CompletableFuture<RaftClientReply> result = new CompletableFuture<>();
        attempt(client, message, write, System.nanoTime() + DEADLINE.toNanos(), onResend, result);
        return result;
    }

    private static void attempt(RaftClient client, Message message, boolean write, long deadline,
                                BiConsumer<ClientId, Throwable> onResend, CompletableFuture<RaftClientReply> result) {
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = write ? client.async().send(message) : client.async().sendReadOnly(message);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, e) -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            Throwable refusal = cause != null ? cause : r.isSuccess() ? null : r.getException();
            if (refusal != null && REFUSALS_ANSWERED.contains(refusal.getClass()) && System.nanoTime() < deadline) {
                onResend.accept(client.getId(), refusal);
                attempt(client, message, write, deadline, onResend, result);
            } else if (e != null) {
                result.completeExceptionally(cause);
            } else {
                result.complete(r);
            }
        });
    }

    /** @return the policy described in the class comment */
    static RetryPolicy retryPolicy() {
        ExceptionDependentRetry.Builder byCause = ExceptionDependentRetry.newBuilder()
            .setDefaultPolicy(RetryPolicies.retryForeverWithSleep(duration(RESEND_SLEEP)))
            .setExceptionToPolicy(StateMachineException.class, RetryPolicies.noRetry())
            .setMaxAttempts(Integer.MAX_VALUE);
        LEADER_CHANGES.forEach(c -> byCause.setExceptionToPolicy(c, RetryPolicies.retryForeverNoSleep()));
        RetryPolicy untilDeadline = byCause.build();
        return RequestTypeDependentRetryPolicy.newBuilder()
            .setRetryPolicy(TypeCase.WRITE, untilDeadline).setTimeout(TypeCase.WRITE, duration(DEADLINE))
            .setRetryPolicy(TypeCase.READ, untilDeadline).setTimeout(TypeCase.READ, duration(DEADLINE))
            .build();
    }

    /** @return whether {@code failure} is a refusal of {@link #LEADER_CHANGES} */
    static boolean isLeaderChange(Throwable failure) {
        return failure != null && LEADER_CHANGES.contains(failure.getClass());
    }

    private static TimeDuration duration(Duration d) {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }
}
