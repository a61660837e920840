package io.bladegc.grpc;

import io.bladegc.api.Gate;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.ServerCall;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The listener of an admitted call: it leaves the gate once, after the application's own {@code onComplete} or
 * {@code onCancel}, whichever comes (gRPC calls one of them, once, for every started call). Thread-safe.
 *
 * @param <Q> the request message type
 */
final class InFlightCall<Q> extends SimpleForwardingServerCallListener<Q> {
    private final Gate gate;
    private final AtomicBoolean left = new AtomicBoolean();

    InFlightCall(ServerCall.Listener<Q> delegate, Gate gate) {
        super(delegate);
        this.gate = gate;
    }

    @Override
    public void onComplete() {
        try {
            super.onComplete();
        } finally {
            leave();
        }
    }

    @Override
    public void onCancel() {
        try {
            super.onCancel();
        } finally {
            leave();
        }
    }

    private void leave() {
        if (left.compareAndSet(false, true)) {
            gate.exit();
        }
    }
}
