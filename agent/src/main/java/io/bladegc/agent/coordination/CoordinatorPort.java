package io.bladegc.agent.coordination;

import io.bladegc.agent.coordination.CoordinatorException.Kind;
import io.bladegc.api.grant.Released;
import io.bladegc.api.grant.SlotAnswer;
import io.bladegc.api.grant.SlotPort;
import io.bladegc.api.grant.SlotPortException;
import io.bladegc.api.slot.Ask;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The coordinator (flow 2) as the grant-holder's {@link SlotPort}: calls through {@link CoordinatorClient} (HTTP,
 * fail-over between replicas), with {@link Membership} telling whether the coordinator is up. A failure that means the
 * coordinator is down marks it down until the heartbeat thread gets it to answer a join again; a {@code 404} (the
 * coordinator forgot the node) joins again at once; a release or cancel that got no answer is handed to the
 * membership, which sends it once more when the coordinator answers again, so that a grant left behind does not make
 * the coordinator refuse the next request until its lease ends. After a release or cancel the membership says the
 * node's next due time soon ({@link Membership#heartbeatSoon}).
 *
 * <p>Thread-safe as its client and membership are.
 */
final class CoordinatorPort implements SlotPort {
    private final CoordinatorClient client;
    private final Membership membership;

    CoordinatorPort(CoordinatorClient client, Membership membership) {
        this.client = client;
        this.membership = membership;
    }

    @Override
    public String unavailable() {
        return membership.isUp() ? null : "coordinator " + membership.downReason();
    }

    @Override
    public CompletableFuture<SlotAnswer> acquire(Ask ask, long waitMillis) {
        CompletableFuture<SlotAnswer> call = client.acquire(ask, waitMillis);
        return CoordinatorClient.abandoning(call, call.handle((answer, failure) -> {
            if (failure == null) {
                return answer;
            }
            CoordinatorException e = CoordinatorAnswers.unwrap(failure);
            throw new CompletionException(new SlotPortException("coordinator " + CoordinatorAnswers.reason(e),
                e.kind() == Kind.TIMEOUT, e));
        }));
    }

    @Override
    public boolean recover(long gcId, SlotPortException failure) {
        if (!(failure.getCause() instanceof CoordinatorException e)) { // the holder's own bound ran out
            membership.markDown(failure.getMessage());
            client.cancelQuietly(gcId); // in case it answers after all: do not leave a slot taken
            return false;
        }
        if (e.kind() == Kind.UNKNOWN_NODE) {
            membership.forgotten();
            return membership.rejoinNow();
        }
        if (e.kind().coordinatorDown()) {
            membership.markDown(e);
        }
        if (failure.timedOut()) {
            client.cancelQuietly(gcId);
        }
        return false;
    }

    @Override
    public Released release(long epoch, long pauseMillis) {
        try {
            client.release(epoch, pauseMillis);
            membership.heartbeatSoon();
            return Released.released();
        } catch (CoordinatorException e) {
            if (e.kind() == Kind.STALE_EPOCH) {
                return new Released(Released.Kind.STALE, "release refused as stale: the lease had ended at the "
                    + "coordinator (not retried; " + e.getMessage() + ")");
            }
            if (e.kind() == Kind.UNKNOWN_NODE) {
                membership.forgotten();
                return new Released(Released.Kind.NOT_DELIVERED,
                    "release: the coordinator does not know this node; it joins again");
            }
            if (e.kind().coordinatorDown()) {
                membership.markDown(e);
            }
            membership.releaseLater(epoch);
            return new Released(Released.Kind.NOT_DELIVERED,
                "release failed, sent again when the coordinator answers (" + CoordinatorAnswers.reason(e) + ")");
        }
    }

    @Override
    public String cancel(long gcId) {
        try {
            client.cancel(gcId);
            membership.heartbeatSoon();
            return "cancelled at the coordinator";
        } catch (CoordinatorException e) {
            if (e.kind().coordinatorDown()) {
                membership.markDown(e);
                membership.cancelLater(gcId);
            } else if (e.kind() == Kind.UNKNOWN_NODE) {
                membership.forgotten();
            }
            return "cancel failed (" + CoordinatorAnswers.reason(e) + ")";
        }
    }
}
