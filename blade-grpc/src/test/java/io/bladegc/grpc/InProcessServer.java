package io.bladegc.grpc;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.testing.protobuf.SimpleServiceGrpc;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** An in-process server with the given services (or the test service behind interceptors, the last runs first), and a channel. */
final class InProcessServer implements AutoCloseable {
    final Server server;
    final ManagedChannel channel;

    InProcessServer(BindableService service, ServerInterceptor... interceptors) throws IOException {
        this(List.of(ServerInterceptors.intercept(service, interceptors)));
    }

    InProcessServer(List<ServerServiceDefinition> services) throws IOException {
        String name = InProcessServerBuilder.generateName();
        InProcessServerBuilder builder = InProcessServerBuilder.forName(name);
        services.forEach(builder::addService);
        server = builder.build().start();
        channel = InProcessChannelBuilder.forName(name).build();
    }

    SimpleServiceGrpc.SimpleServiceBlockingStub blocking() {
        return SimpleServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    SimpleServiceGrpc.SimpleServiceStub async() {
        return SimpleServiceGrpc.newStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    SimpleServiceGrpc.SimpleServiceFutureStub future() {
        return SimpleServiceGrpc.newFutureStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        channel.shutdownNow();
        server.shutdownNow();
        try {
            channel.awaitTermination(10, TimeUnit.SECONDS);
            server.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
