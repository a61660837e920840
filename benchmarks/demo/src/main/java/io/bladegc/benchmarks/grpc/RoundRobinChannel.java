package io.bladegc.benchmarks.grpc;

import io.grpc.ManagedChannel;
import io.grpc.NameResolverRegistry;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A grpc-java client channel over fixed backends as docs/grpc.md configures one for Blade: {@code round_robin} over
 * the addresses ({@link StaticAddresses}, registered while the channel is open) with client-side health checking
 * (each backend's {@code grpc.health.v1.Health/Watch} for the whole server, {@code ""}: a backend that says
 * {@code NOT_SERVING} while it drains and collects gets no calls), and a retry policy for {@code UNAVAILABLE}, the
 * status a shedding backend answers with, whose {@code grpc-retry-pushback-ms} trailer grpc-java obeys. {@link #close()} shuts the channel down and deregisters the addresses. Thread-safe as grpc-java's
 * channel is.
 */
public final class RoundRobinChannel implements AutoCloseable {
    private final StaticAddresses addresses;
    private final ManagedChannel channel;

    private RoundRobinChannel(StaticAddresses addresses, ManagedChannel channel) {
        this.addresses = addresses;
        this.channel = channel;
    }

    /**
     * @param backends    the backends' addresses, one address group each
     * @param maxAttempts attempts per call (the first included), also the channel's {@code maxRetryAttempts} (above
     *                    grpc-java's default cap of 5 when larger)
     * @return the open channel
     */
    public static RoundRobinChannel open(List<InetSocketAddress> backends, int maxAttempts) {
        StaticAddresses addresses = new StaticAddresses(backends);
        NameResolverRegistry.getDefaultRegistry().register(addresses);
        ManagedChannel channel = NettyChannelBuilder.forTarget(StaticAddresses.SCHEME + ":///backends")
            .usePlaintext()
            .defaultLoadBalancingPolicy("round_robin")
            .defaultServiceConfig(retryUnavailable(maxAttempts))
            .enableRetry()
            .maxRetryAttempts(maxAttempts)
            .build();
        return new RoundRobinChannel(addresses, channel);
    }

    /** @return the channel, for stubs */
    public ManagedChannel channel() {
        return channel;
    }

    /**
     * docs/grpc.md's service config: health checking of the whole server, and for every method {@code UNAVAILABLE}
     * retried, backing off from 10 ms to 100 ms at most (a pushback, when the server sends one, replaces the backoff).
     */
    static Map<String, ?> retryUnavailable(int maxAttempts) {
        return Map.of("healthCheckConfig", Map.of("serviceName", ""), "methodConfig", List.of(Map.of(
            "name", List.of(Map.of()),
            "retryPolicy", Map.of(
                "maxAttempts", (double) maxAttempts,
                "initialBackoff", "0.01s",
                "maxBackoff", "0.1s",
                "backoffMultiplier", 2.0,
                "retryableStatusCodes", List.of("UNAVAILABLE")))));
    }

    /** Shuts the channel down (calls in flight fail), waits up to 10 s for it, deregisters the addresses. */
    @Override
    public void close() throws InterruptedException {
        try {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        } finally {
            NameResolverRegistry.getDefaultRegistry().deregister(addresses);
        }
    }
}
