package io.bladegc.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.junit.jupiter.api.Test;

class RaftKvClientPoolTest {
    private final AtomicInteger closed = new AtomicInteger();

    /** A client that has an id and can be closed; the calls under test never use the rest. */
    private RaftClient client() {
        ClientId id = ClientId.randomId();
        return (RaftClient) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {RaftClient.class},
            (proxy, method, args) -> switch (method.getName()) {
                case "getId" -> id;
                case "close" -> {
                    closed.incrementAndGet();
                    yield null;
                }
                case "toString" -> "client " + id;
                default -> throw new UnsupportedOperationException(method.getName());
            });
    }

    /** A call whose reply the test completes; it notes the client it got and its outcome. */
    private static final class Held implements RaftKvClientPool.Call {
        final CompletableFuture<RaftClientReply> reply = new CompletableFuture<>();
        RaftClient client;
        Throwable failure;
        boolean done;

        @Override
        public CompletableFuture<RaftClientReply> send(RaftClient c) {
            client = c;
            return reply;
        }

        @Override
        public void completed(RaftClientReply r, Throwable f) {
            failure = f;
            done = true;
        }
    }

    @Test
    void oneCallPerClientAndTheRestWaitInTurn() throws IOException {
        List<Held> calls = new ArrayList<>();
        try (RaftKvClientPool pool = new RaftKvClientPool(2, this::client)) {
            for (int i = 0; i < 4; i++) {
                Held c = new Held();
                calls.add(c);
                pool.submit(c);
            }
            assertThat(calls.get(0).client).isNotNull().isNotSameAs(calls.get(1).client);
            assertThat(calls.get(2).client).isNull();
            assertThat(pool.carrying(calls.get(0).client.getId())).isSameAs(calls.get(0));

            calls.get(1).reply.complete(null); // frees the second client: the third call takes it
            assertThat(calls.get(1).done).isTrue();
            assertThat(calls.get(2).client).isSameAs(calls.get(1).client);
            assertThat(pool.carrying(calls.get(1).client.getId())).isSameAs(calls.get(2));
            assertThat(calls.get(3).client).isNull();

            calls.get(0).reply.completeExceptionally(new IOException("lost")); // a failure frees its client too
            assertThat(calls.get(0).failure).isInstanceOf(IOException.class).hasMessage("lost");
            assertThat(calls.get(3).client).isSameAs(calls.get(0).client);
            assertThat(pool.waited()).isEqualTo(2);
            assertThat(pool.longestWaitMicros()).isNotNegative();
        }
        assertThat(closed).hasValue(2);
    }

    @Test
    void aCallWhoseSendThrowsFailsAndFreesItsClient() throws IOException {
        try (RaftKvClientPool pool = new RaftKvClientPool(1, this::client)) {
            Throwable[] outcome = new Throwable[1];
            pool.submit(new RaftKvClientPool.Call() {
                @Override
                public CompletableFuture<RaftClientReply> send(RaftClient c) {
                    throw new IllegalStateException("refused");
                }

                @Override
                public void completed(RaftClientReply r, Throwable f) {
                    outcome[0] = f;
                }
            });
            assertThat(outcome[0]).isInstanceOf(IllegalStateException.class);
            Held next = new Held();
            pool.submit(next);
            assertThat(next.client).isNotNull();
            assertThat(pool.waited()).isZero();
        }
    }

    @Test
    void afterCloseACallFailsAtOnce() throws IOException {
        RaftKvClientPool pool = new RaftKvClientPool(1, this::client);
        pool.close();
        Held late = new Held();
        pool.submit(late);
        assertThat(late.done).isTrue();
        assertThat(late.failure).isInstanceOf(IOException.class);
    }
}
