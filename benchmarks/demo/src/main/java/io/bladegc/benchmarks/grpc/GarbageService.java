package io.bladegc.benchmarks.grpc;

import io.bladegc.benchmarks.demo.Workload;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.protobuf.SimpleRequest;
import io.grpc.testing.protobuf.SimpleResponse;
import io.grpc.testing.protobuf.SimpleServiceGrpc;

/**
 * {@code grpc.testing.SimpleService} for {@link GrpcBackend}: a unary call does one request's work of the demo's
 * {@link Workload} (garbage, and live-set churn when it keeps a live set) and answers with the node's name and the
 * work's checksum; a server-streaming call whose request is
 * {@code <count>x<intervalMs>} sends {@code count} messages {@code "<node> <i>"}, one every {@code intervalMs}, from a
 * thread of its own, then completes (it stops when the client cancels).
 */
final class GarbageService extends SimpleServiceGrpc.SimpleServiceImplBase {
    private final String node;
    private final Workload workload;

    GarbageService(String node, Workload workload) {
        this.node = node;
        this.workload = workload;
    }

    @Override
    public void unaryRpc(SimpleRequest request, StreamObserver<SimpleResponse> out) {
        long sum = workload.handle();
        out.onNext(SimpleResponse.newBuilder().setResponseMessage(node + " " + sum).build());
        out.onCompleted();
    }

    @Override
    public void serverStreamingRpc(SimpleRequest request, StreamObserver<SimpleResponse> out) {
        String[] spec = request.getRequestMessage().split("x");
        int count = Integer.parseInt(spec[0]);
        long intervalMs = Long.parseLong(spec[1]);
        ServerCallStreamObserver<SimpleResponse> call = (ServerCallStreamObserver<SimpleResponse>) out;
        Thread sender = new Thread(() -> {
            try {
                for (int i = 0; i < count && !call.isCancelled(); i++) {
                    Thread.sleep(intervalMs);
                    call.onNext(SimpleResponse.newBuilder().setResponseMessage(node + " " + i).build());
                }
                call.onCompleted();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                System.err.println("stream ended: " + e); // cancelled by the client
            }
        }, "stream-" + count + "x" + intervalMs);
        sender.setDaemon(true);
        sender.start();
    }
}
