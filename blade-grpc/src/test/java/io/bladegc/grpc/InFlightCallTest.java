package io.bladegc.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.api.Gate;
import io.grpc.ServerCall;
import org.junit.jupiter.api.Test;

/** An admitted call leaves the gate exactly once, whatever its listener is told and whatever the application does. */
class InFlightCallTest {
    private final Gate gate = new Gate();

    @Test
    void leavesOnceWhenToldBothCancelAndComplete() {
        assertThat(gate.tryEnter()).isTrue();
        InFlightCall<Object> call = new InFlightCall<>(new ServerCall.Listener<>() {
        }, gate);

        call.onCancel();
        call.onComplete();
        call.onCancel();

        assertThat(gate.inFlight()).isZero();
        assertThat(gate.tryEnter()).isTrue();
        assertThat(gate.inFlight()).as("the count did not go below zero").isEqualTo(1);
    }

    @Test
    void leavesAfterTheApplicationsOwnCallbackEvenWhenItThrows() {
        assertThat(gate.tryEnter()).isTrue();
        long[] inFlightSeenByApplication = new long[1];
        InFlightCall<Object> call = new InFlightCall<>(new ServerCall.Listener<>() {
            @Override
            public void onComplete() {
                inFlightSeenByApplication[0] = gate.inFlight();
                throw new IllegalStateException("the application's onComplete threw");
            }
        }, gate);

        assertThatThrownBy(call::onComplete).isInstanceOf(IllegalStateException.class);

        assertThat(inFlightSeenByApplication[0]).isEqualTo(1);
        assertThat(gate.inFlight()).isZero();
    }
}
