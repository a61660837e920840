package io.bladegc.benchmarks.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The load generator's HTTP/1.1 client: a fixed number of keep-alive connections served by one selector on the
 * caller's thread, with a FIFO of requests due while every connection is busy. Once its connections are open it
 * allocates nothing per request (buffers, parser and queue are made up front; the queue grows, rarely, by doubling),
 * so the load generator can run under a collector that never pauses it (Epsilon) without running out of heap.
 * Latency is timed from each request's intended send time; every outcome goes to the {@link LoadTally}.
 *
 * <p>Not thread-safe: the event loop that schedules the requests ({@link OpenLoopLoad}) calls every method.
 */
final class NioSender implements AutoCloseable {
    private static final int READ_BUFFER = 16 * 1024;
    /** Below this much time left, the loop polls the selector and parks briefly instead of blocking in select. */
    private static final long SPIN_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /** One keep-alive connection. */
    private final class Conn {
        final ByteBuffer out;
        final ByteBuffer in = ByteBuffer.allocateDirect(READ_BUFFER);
        final ResponseParser parser = new ResponseParser();
        SocketChannel channel;
        SelectionKey key;
        boolean busy;
        boolean connected;
        long intended;
        boolean measured;
        long sentAt;

        Conn(byte[] request) {
            out = ByteBuffer.allocateDirect(request.length);
            out.put(request).flip();
        }
    }

    private final InetSocketAddress address;
    private final Conn[] conns;
    private final long timeoutNanos;
    private final LoadTally tally;
    private final Selector selector;
    private final Consumer<SelectionKey> onReady = this::onReady;
    private long[] queue = new long[1024]; // intended time, sign bit set when measured
    private int head;
    private int size;
    private int busy;

    /**
     * @param address     the server
     * @param request     the request's bytes, sent as they are for every request
     * @param connections how many connections, at least 1
     * @param timeout     a request without a complete answer this long after it was sent fails (its connection is
     *                    closed and opened again)
     * @param tally       where outcomes go
     */
    NioSender(InetSocketAddress address, byte[] request, int connections, Duration timeout, LoadTally tally)
            throws IOException {
        this.address = address;
        this.timeoutNanos = timeout.toNanos();
        this.tally = tally;
        this.selector = Selector.open();
        this.conns = new Conn[connections];
        for (int i = 0; i < connections; i++) {
            conns[i] = new Conn(request);
        }
    }

    /** @return the queue's length: it doubles whenever more requests wait behind busy connections than it holds */
    int queueCapacity() {
        return queue.length;
    }

    /** Sends a request due at {@code intended} now, or queues it while every connection is busy. */
    void submit(long intended, boolean measured) {
        if (size == queue.length) {
            long[] bigger = new long[queue.length * 2];
            for (int i = 0; i < size; i++) {
                bigger[i] = queue[(head + i) % queue.length];
            }
            queue = bigger;
            head = 0;
        }
        queue[(head + size) % queue.length] = measured ? intended | Long.MIN_VALUE : intended & Long.MAX_VALUE;
        size++;
        if (measured) {
            tally.queued(size);
        }
        dispatch();
    }

    /** @return whether no request is queued or in flight */
    boolean idle() {
        return size == 0 && busy == 0;
    }

    /** Does I/O until {@code until} ({@link System#nanoTime()}): answers, timeouts, queued requests. */
    void poll(long until) throws IOException {
        while (true) {
            long now = System.nanoTime();
            expire(now);
            if (size > 0 && busy < conns.length) {
                dispatch();
            }
            long left = until - now;
            if (left <= 0) {
                return;
            }
            if (left > SPIN_NANOS) {
                selector.select(onReady, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left - SPIN_NANOS / 2)));
            } else if (selector.selectNow(onReady) == 0) {
                LockSupport.parkNanos(Math.min(left, 20_000));
            }
        }
    }

    /** @return queued and busy counts and each connection's state ({@code -} closed, {@code c} connecting,
     *     {@code B} busy, {@code i} idle), for diagnostics */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("NioSender[queued=" + size + ", busy=" + busy + ", connections=");
        for (Conn c : conns) {
            b.append(c.channel == null ? '-' : !c.connected ? 'c' : c.busy ? 'B' : 'i');
        }
        return b.append(']').toString();
    }

    @Override
    public void close() throws IOException {
        for (Conn c : conns) {
            if (c.channel != null) {
                c.channel.close();
            }
        }
        selector.close();
    }

    /** Hands queued requests to idle connections. */
    private void dispatch() {
        for (int i = 0; i < conns.length && size > 0; i++) {
            Conn c = conns[i];
            if (!c.busy) {
                long q = queue[head];
                head = (head + 1) % queue.length;
                size--;
                c.busy = true;
                busy++;
                c.intended = q & Long.MAX_VALUE;
                c.measured = q < 0;
                c.sentAt = System.nanoTime();
                start(c);
            }
        }
    }

    private void start(Conn c) {
        try {
            if (c.channel == null) {
                c.channel = SocketChannel.open();
                c.channel.configureBlocking(false);
                c.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.connected = c.channel.connect(address);
                c.key = c.channel.register(selector, c.connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, c);
            }
            if (c.connected) {
                write(c);
            }
        } catch (IOException e) {
            settleFailed(c, false); // no dispatch from here: the poll loop hands on the queue
        }
    }

    private void write(Conn c) throws IOException {
        c.out.rewind();
        c.parser.reset();
        c.in.clear();
        c.channel.write(c.out);
        c.key.interestOps(c.out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    private void onReady(SelectionKey key) {
        Conn c = (Conn) key.attachment();
        try {
            if (key.isConnectable()) {
                c.channel.finishConnect();
                c.connected = true;
                write(c);
                return;
            }
            if (key.isWritable()) {
                c.channel.write(c.out);
                if (!c.out.hasRemaining()) {
                    key.interestOps(SelectionKey.OP_READ);
                }
            }
            if (key.isReadable()) {
                read(c);
            }
        } catch (IOException | RuntimeException e) {
            if (c.busy) {
                fail(c, false);
            } else {
                reopenLater(c);
            }
        }
    }

    private void read(Conn c) throws IOException {
        int n = c.channel.read(c.in);
        if (n < 0) {
            throw new IOException("connection closed by the server");
        }
        if (!c.busy) {
            return; // bytes nobody asked for: the next request's parse would fail; drop them with the connection
        }
        c.in.flip();
        boolean done = c.parser.feed(c.in); // throws on a malformed response
        c.in.compact();
        if (done) {
            long latencyMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - c.intended);
            tally.answered(c.measured, c.intended, latencyMicros, c.parser.status(), c.parser.retryAfter());
            c.busy = false;
            busy--;
            if (c.parser.closes()) {
                reopenLater(c);
            }
            dispatch();
        }
    }

    /** Fails the connection's request (timed out or an I/O error), closes it, and hands on the queue. */
    private void fail(Conn c, boolean timedOut) {
        settleFailed(c, timedOut);
        dispatch();
    }

    private void settleFailed(Conn c, boolean timedOut) {
        long latencyMicros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - c.intended);
        tally.failed(c.measured, c.intended, latencyMicros, timedOut);
        c.busy = false;
        busy--;
        reopenLater(c);
    }

    private void reopenLater(Conn c) {
        if (c.channel != null) {
            try {
                c.channel.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        c.channel = null;
        c.key = null;
        c.connected = false;
    }

    private void expire(long now) {
        for (Conn c : conns) {
            if (c.busy && now - c.sentAt > timeoutNanos) {
                fail(c, true);
            }
        }
    }
}
