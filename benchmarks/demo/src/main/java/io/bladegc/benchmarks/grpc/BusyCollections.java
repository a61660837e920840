package io.bladegc.benchmarks.grpc;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The collections during which a unary call was in flight, found as the node's {@code QuietWindows} are: by the
 * JVM's collection count (all collector beans together, one more per stop-the-world collection), read when the call
 * comes in and when it ends; the count changes only inside a pause, so no clock is matched. Run it before Blade's
 * interceptor (outside it), so that each call's interval contains its time in flight through the gate; calls Blade
 * sheds ({@code UNAVAILABLE}, which the service itself never answers) are not counted. Server-streaming calls are
 * passed on untouched. Thread-safe.
 */
final class BusyCollections implements ServerInterceptor {
    private final List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    private final Set<Long> busy = new ConcurrentSkipListSet<>();

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                      ServerCallHandler<Q, A> next) {
        if (call.getMethodDescriptor().getType() != MethodType.UNARY) {
            return next.startCall(call, headers);
        }
        long from = collections();
        AtomicBoolean shed = new AtomicBoolean();
        AtomicBoolean ended = new AtomicBoolean();
        ServerCall<Q, A> watched = new SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                shed.set(status.getCode() == Status.Code.UNAVAILABLE);
                super.close(status, trailers);
            }
        };
        return new SimpleForwardingServerCallListener<>(next.startCall(watched, headers)) {
            @Override
            public void onComplete() {
                try {
                    super.onComplete();
                } finally {
                    end();
                }
            }

            @Override
            public void onCancel() {
                try {
                    super.onCancel();
                } finally {
                    end();
                }
            }

            private void end() {
                if (ended.compareAndSet(false, true) && !shed.get()) {
                    for (long c = collections(); c > from; c--) {
                        busy.add(c);
                    }
                }
            }
        };
    }

    /** @return how many collections since the start or the last {@link #reset()} had a unary call in flight */
    int count() {
        return busy.size();
    }

    void reset() {
        busy.clear();
    }

    private long collections() {
        long sum = 0;
        for (GarbageCollectorMXBean b : beans) {
            sum += Math.max(0, b.getCollectionCount());
        }
        return sum;
    }
}
