package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.SlotEvent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * The acquire long-polls: at most one per node, each waiting until its request is granted, gone, or its wait is over
 * (then it is answered with where the request stands). A poll's future is completed through {@link Rotation#deliver},
 * so a grant is answered only once the node is out of rotation.
 *
 * <p>Not thread-safe: every method runs as a task of the {@link SlotExecutor}, as do the timeouts it schedules.
 */
final class LongPolls {

    /** An acquire waiting for its grant. */
    private static final class Poll {
        final String node;
        final long gcId;
        final CompletableFuture<SlotReply> future;
        SlotExecutor.Cancellable timeout = () -> { };

        Poll(String node, long gcId, CompletableFuture<SlotReply> future) {
            this.node = node;
            this.gcId = gcId;
            this.future = future;
        }
    }

    private final Ledger ledger;
    private final LongSupplier clock;
    private final SlotExecutor executor;
    private final Rotation rotation;
    private final BiConsumer<List<SlotEvent>, Long> publish;
    private final Map<String, Poll> polls = new HashMap<>();

    /**
     * @param publish what the service does with ledger events (it answers polls through {@link #answer}); used when a
     *                poll's wait is over, after ticking the ledger
     */
    LongPolls(Ledger ledger, LongSupplier clock, SlotExecutor executor, Rotation rotation,
              BiConsumer<List<SlotEvent>, Long> publish) {
        this.ledger = ledger;
        this.clock = clock;
        this.executor = executor;
        this.rotation = rotation;
        this.publish = publish;
    }

    /** @return how many polls are open */
    int size() {
        return polls.size();
    }

    /**
     * Ends {@code node}'s open poll, which a newer acquire for {@code gcId} replaces: a poll for another request is
     * answered {@link SlotReply.Kind#CANCELLED} (that request is gone); one for the same request is left to the caller
     * to answer with the newer acquire's answer.
     *
     * @return the future of a poll for the same request, or {@code null}
     */
    CompletableFuture<SlotReply> replace(String node, long gcId, long now) {
        Poll previous = polls.remove(node);
        if (previous == null) {
            return null;
        }
        previous.timeout.cancel();
        if (previous.gcId == gcId) {
            return previous.future;
        }
        rotation.deliver(previous.future, SlotReply.of(SlotReply.Kind.CANCELLED, node, previous.gcId,
            "GC request " + previous.gcId + " was replaced by GC request " + gcId, now));
        return null;
    }

    /**
     * Opens a poll for {@code node}'s request {@code gcId}, answered by {@link #answer} or after {@code waitMillis}. When
     * {@code future} is cancelled (the client went away), the poll is forgotten; the queued request stays.
     */
    void open(String node, long gcId, CompletableFuture<SlotReply> future, long waitMillis) {
        Poll poll = new Poll(node, gcId, future);
        polls.put(node, poll);
        poll.timeout = executor.schedule(() -> timedOut(poll), waitMillis);
        future.whenComplete((r, e) -> {
            if (future.isCancelled()) {
                try {
                    executor.execute(() -> forget(poll));
                } catch (RejectedExecutionException ignored) {
                    // shutting down: nothing left to tidy
                }
            }
        });
    }

    /** Answers {@code node}'s poll with {@code reply}, if it waits for {@code gcId} (any request when {@code gcId} is -1). */
    void answer(String node, long gcId, SlotReply reply) {
        Poll p = polls.get(node);
        if (p != null && (gcId == -1 || p.gcId == gcId)) {
            polls.remove(node);
            p.timeout.cancel();
            rotation.deliver(p.future, reply);
        }
    }

    /**
     * Answers every open poll: {@link SlotReply.Kind#UNAVAILABLE} when the coordinator shuts down,
     * {@link SlotReply.Kind#NOT_LEADER} when a replica stops being the leader.
     */
    void closeAll(long now, SlotReply.Kind kind, String why) {
        for (Poll p : List.copyOf(polls.values())) {
            p.timeout.cancel();
            p.future.complete(SlotReply.of(kind, p.node, p.gcId, why, now));
        }
        polls.clear();
    }

    private void timedOut(Poll poll) {
        if (polls.get(poll.node) != poll) {
            return;
        }
        long now = clock.getAsLong();
        publish.accept(ledger.tick(now), now); // what time decided up to now may grant this very poll
        if (polls.get(poll.node) != poll) {
            return;
        }
        polls.remove(poll.node);
        rotation.deliver(poll.future, standing(poll.node, poll.gcId, now));
    }

    /** Where the node's request stands: granted, queued at a position, or gone. */
    private SlotReply standing(String node, long gcId, long now) {
        Grant g = ledger.grantOf(node);
        if (g != null && g.gcId() == gcId) {
            return SlotReply.granted(g, now);
        }
        int position = ledger.queuePosition(node, gcId);
        if (position > 0) {
            return SlotReply.queued(node, gcId, position, now);
        }
        return SlotReply.of(SlotReply.Kind.CANCELLED, node, gcId, "GC request " + gcId + " is no longer queued", now);
    }

    private void forget(Poll poll) {
        if (polls.get(poll.node) == poll) {
            polls.remove(poll.node);
            poll.timeout.cancel();
        }
    }
}
