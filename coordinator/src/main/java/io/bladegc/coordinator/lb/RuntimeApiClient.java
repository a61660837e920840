package io.bladegc.coordinator.lb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Sends one command to HAProxy's runtime API in its non-interactive mode: a connection of its own, one line, then the
 * answer until HAProxy closes the connection. Both steps are bounded: connecting by the connect timeout, sending the
 * line and reading the whole answer by the read timeout, and the answer by {@link #MAX_ANSWER_BYTES}.
 *
 * <p>Thread-safe and stateless between calls.
 */
final class RuntimeApiClient {

    /** Upper bound on an answer; {@code show servers state} is about 150 bytes per server. */
    static final int MAX_ANSWER_BYTES = 4 << 20;

    private final RuntimeApiEndpoint endpoint;
    private final Duration connectTimeout;
    private final Duration readTimeout;

    RuntimeApiClient(RuntimeApiEndpoint endpoint, Duration connectTimeout, Duration readTimeout) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.connectTimeout = positive(connectTimeout, "connect timeout");
        this.readTimeout = positive(readTimeout, "read timeout");
    }

    RuntimeApiEndpoint endpoint() {
        return endpoint;
    }

    Duration connectTimeout() {
        return connectTimeout;
    }

    Duration readTimeout() {
        return readTimeout;
    }

    /**
     * Sends one command line and returns HAProxy's whole answer (read until it closes the connection).
     *
     * @throws IllegalArgumentException when {@code command} holds a line break (it would be a second command)
     * @throws IOException              when HAProxy cannot be reached, a timeout passes, or the answer is too long
     */
    String exchange(String command) throws IOException {
        if (command.indexOf('\n') >= 0 || command.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("one command line only");
        }
        byte[] line = (command + "\n").getBytes(StandardCharsets.US_ASCII);
        try (SocketChannel channel = endpoint.open(); Selector selector = Selector.open()) {
            channel.configureBlocking(false);
            SelectionKey key = channel.register(selector, 0);
            long connectDeadline = System.nanoTime() + connectTimeout.toNanos();
            try {
                if (!channel.connect(endpoint.address())) {
                    key.interestOps(SelectionKey.OP_CONNECT);
                    while (!channel.finishConnect()) {
                        await(selector, connectDeadline, connectTimeout, "connecting");
                    }
                }
            } catch (InterruptedIOException e) {
                throw e;
            } catch (IOException e) {
                throw new IOException("cannot connect: " + e.getMessage(), e);
            }
            long deadline = System.nanoTime() + readTimeout.toNanos();
            ByteBuffer out = ByteBuffer.wrap(line);
            key.interestOps(SelectionKey.OP_WRITE);
            while (out.hasRemaining()) {
                if (channel.write(out) == 0) {
                    await(selector, deadline, readTimeout, "sending the command");
                }
            }
            key.interestOps(SelectionKey.OP_READ);
            ByteArrayOutputStream answer = new ByteArrayOutputStream(256);
            ByteBuffer in = ByteBuffer.allocate(8192);
            while (true) {
                in.clear();
                int n = channel.read(in);
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    await(selector, deadline, readTimeout, "waiting for the answer (HAProxy closes the connection after it)");
                    continue;
                }
                if (answer.size() + n > MAX_ANSWER_BYTES) {
                    throw new IOException("answer longer than " + MAX_ANSWER_BYTES + " bytes");
                }
                answer.write(in.array(), 0, n);
            }
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    private static void await(Selector selector, long deadline, Duration timeout, String what) throws IOException {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            throw new SocketTimeoutException("timed out after " + timeout.toMillis() + " ms " + what);
        }
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
        selector.selectedKeys().clear();
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedIOException("interrupted while " + what);
        }
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("HAProxy adapter: " + what + " must be positive, was " + d);
        }
        return d;
    }
}
