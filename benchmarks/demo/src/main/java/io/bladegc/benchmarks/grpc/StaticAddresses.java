package io.bladegc.benchmarks.grpc;

import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.NameResolverProvider;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.List;

/**
 * A name resolver for targets {@code blade-static:///<anything>} that resolves to fixed addresses, one address group
 * each (what {@code round_robin} balances over): {@code dns:} cannot name three ports of 127.0.0.1.
 * {@link RoundRobinChannel} registers it with {@link io.grpc.NameResolverRegistry} and deregisters it when closed.
 */
final class StaticAddresses extends NameResolverProvider {
    static final String SCHEME = "blade-static";

    private final List<EquivalentAddressGroup> groups;

    StaticAddresses(List<InetSocketAddress> addresses) {
        this.groups = addresses.stream().map(EquivalentAddressGroup::new).toList();
    }

    @Override
    public NameResolver newNameResolver(URI target, NameResolver.Args args) {
        if (!SCHEME.equals(target.getScheme())) {
            return null;
        }
        return new NameResolver() {
            @Override
            public String getServiceAuthority() {
                return "localhost";
            }

            @Override
            public void start(Listener2 listener) {
                listener.onResult(ResolutionResult.newBuilder().setAddresses(groups).build());
            }

            @Override
            public void shutdown() {
            }
        };
    }

    @Override
    public String getDefaultScheme() {
        return SCHEME;
    }

    @Override
    protected boolean isAvailable() {
        return true;
    }

    @Override
    protected int priority() {
        return 5;
    }

    @Override
    public Collection<Class<? extends SocketAddress>> getProducedSocketAddressTypes() {
        return List.of(InetSocketAddress.class);
    }
}
