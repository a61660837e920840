package io.bladegc.benchmarks.suite;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;

/**
 * A fixed number of independent Ratis clients, each carrying one call at a time, as an application's request
 * threads, each with its connection, would: a slow call (a read lost in a leader change, waiting out its attempt
 * timeout) holds only itself and its client. (Built when the calls were async: a Ratis client answers its async calls
 * in order, so one slow call held every later call of that client.) Concurrency is bounded: a call submitted while
 * every client is busy waits (first come, first served) for the first client freed; how many waited, and the longest
 * wait, are counted.
 *
 * <p>Thread-safe. Completions run on the threads that make the calls.
 */
final class RaftKvClientPool implements AutoCloseable {
    /** One call: what to send on the client it gets, and what to do with its outcome. */
    interface Call {
        /** @return the reply to come; called with the pool's lock not held */
        CompletableFuture<RaftClientReply> send(RaftClient client);

        /**
         * @param reply   the reply, null when the call failed
         * @param failure why it failed (unwrapped from its {@link CompletionException}), null when it got a reply
         */
        void completed(RaftClientReply reply, Throwable failure);
    }

    private record Waiting(Call call, long sinceNanos) {
    }

    private final List<RaftClient> clients = new ArrayList<>();
    private final Deque<RaftClient> idle = new ArrayDeque<>();
    private final Deque<Waiting> waiting = new ArrayDeque<>();
    private final Map<ClientId, Call> carrying = new ConcurrentHashMap<>();
    private long waited;
    private long longestWaitNanos;
    private boolean closed;

    /**
     * @param size    how many clients, at least 1
     * @param factory makes each client (the pool closes them)
     */
    RaftKvClientPool(int size, Supplier<RaftClient> factory) {
        if (size < 1) {
            throw new IllegalArgumentException("a pool needs a client: " + size);
        }
        for (int i = 0; i < size; i++) {
            RaftClient c = factory.get();
            clients.add(c);
            idle.add(c);
        }
    }

    /** Sends {@code call} on an idle client now, or on the first one freed. */
    void submit(Call call) {
        RaftClient client;
        synchronized (this) {
            client = closed ? null : idle.pollFirst();
            if (client == null && !closed) {
                waiting.addLast(new Waiting(call, System.nanoTime()));
                return;
            }
        }
        if (client == null) {
            call.completed(null, new IOException("the client pool is closed"));
        } else {
            start(client, call);
        }
    }

    /** @return the call {@code client} carries now, null when none */
    Call carrying(ClientId client) {
        return carrying.get(client);
    }

    /** @return how many calls waited for a client so far */
    synchronized long waited() {
        return waited;
    }

    /** @return the longest a call waited for a client so far, microseconds */
    synchronized long longestWaitMicros() {
        return longestWaitNanos / 1000;
    }

    private void start(RaftClient client, Call call) {
        carrying.put(client.getId(), call);
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = call.send(client);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, e) -> {
            carrying.remove(client.getId());
            call.completed(e == null ? r : null, e instanceof CompletionException && e.getCause() != null
                ? e.getCause() : e);
            free(client);
        });
    }

    private void free(RaftClient client) {
        Waiting next;
        synchronized (this) {
            next = closed ? null : waiting.pollFirst();
            if (next == null) {
                idle.addLast(client);
                return;
            }
            waited++;
            longestWaitNanos = Math.max(longestWaitNanos, System.nanoTime() - next.sinceNanos());
        }
        start(client, next.call());
    }

    /**
     * Closes every client, all at once: closing one whose connection still carries a call waits for it (Ratis gives
     * a gRPC channel 3 s to shut down gracefully), and one after the other that would add up. Calls still out fail;
     * calls still waiting are dropped.
     */
    @Override
    public void close() throws IOException {
        synchronized (this) {
            closed = true;
            waiting.clear();
        }
        List<Thread> closing = new ArrayList<>();
        List<IOException> failures = new CopyOnWriteArrayList<>();
        for (RaftClient c : clients) {
            Thread t = new Thread(() -> {
                try {
                    c.close();
                } catch (IOException e) {
                    failures.add(e);
                }
            }, "raft-kv-close-" + closing.size());
            t.start();
            closing.add(t);
        }
        for (Thread t : closing) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while closing the clients", e);
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }
}
