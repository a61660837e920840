package io.bladegc.coordinator;

import io.bladegc.coordinator.slots.SlotService;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's HTTP server: binds, runs the connections on named event-loop threads
 * ({@code blade-coordinator-accept}, {@code blade-coordinator-io-N}, daemons) and shuts down gracefully: stop
 * accepting, answer open long-polls, let written answers flush, close.
 *
 * <p>Thread-safe. Owns the {@link SlotService} it was started with and closes it.
 */
public final class CoordinatorServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(CoordinatorServer.class.getName());

    private final EventLoopGroup acceptor;
    private final EventLoopGroup workers;
    private final ChannelGroup channels;
    private final CoordinatorServerInitializer initializer;
    private final SlotService slots;
    private final Channel listener;
    private final InetSocketAddress address;
    private volatile boolean closed;

    private CoordinatorServer(CoordinatorConfig config, SlotService slots) throws IOException {
        this.slots = slots;
        this.acceptor = new NioEventLoopGroup(1, new DefaultThreadFactory("blade-coordinator-accept", true));
        this.workers = new NioEventLoopGroup(0, new DefaultThreadFactory("blade-coordinator-io", true));
        this.channels = new DefaultChannelGroup("blade-coordinator", GlobalEventExecutor.INSTANCE);
        this.initializer = new CoordinatorServerInitializer(config, slots, channels);
        ServerBootstrap bootstrap = new ServerBootstrap()
            .group(acceptor, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(initializer);
        try {
            this.listener = bootstrap.bind(config.bind(), config.port()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            shutdownGroups();
            throw new IOException("cannot listen on " + config.bind() + ":" + config.port() + ": " + e.getMessage(), e);
        }
        this.address = (InetSocketAddress) listener.localAddress();
    }

    /**
     * Starts listening.
     *
     * @param config where to listen, limits, token
     * @param slots  the slot service; the server closes it when it closes
     * @return the running server
     * @throws IllegalArgumentException when {@link CoordinatorConfig#problems()} is not empty
     * @throws IOException              when the address cannot be bound
     */
    public static CoordinatorServer start(CoordinatorConfig config, SlotService slots) throws IOException {
        if (!config.problems().isEmpty()) {
            slots.close();
            throw new IllegalArgumentException(String.join("; ", config.problems()));
        }
        try {
            return new CoordinatorServer(config, slots);
        } catch (IOException | RuntimeException e) {
            slots.close();
            throw e;
        }
    }

    /** @return the address the server listens on (with the real port when 0 was asked) */
    public InetSocketAddress address() {
        return address;
    }

    /** @return the load balancer's own description of itself */
    public String loadBalancerDescription() {
        return slots.loadBalancer().describe();
    }

    /** @return connections open now */
    public int openConnections() {
        return initializer.openConnections();
    }

    /** Blocks until the server is closed. */
    public void awaitClose() throws InterruptedException {
        listener.closeFuture().sync();
        workers.terminationFuture().sync();
    }

    /**
     * Stops gracefully: no new connections; open long-polls are answered 503; answers already written are flushed
     * (up to about 3 s); then every connection is closed and the threads end. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        listener.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        slots.close();
        shutdownGroups();
        channels.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        LOG.log(System.Logger.Level.DEBUG, "coordinator on " + address + " stopped");
    }

    private void shutdownGroups() {
        acceptor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(100, 3_000, TimeUnit.MILLISECONDS);
        acceptor.terminationFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
        workers.terminationFuture().awaitUninterruptibly(4, TimeUnit.SECONDS);
    }
}
