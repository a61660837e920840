package io.bladegc.api;

import java.time.Duration;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * The gate under Lincheck: generated concurrent scenarios, explored interleaving by interleaving (model checking) and
 * run on real threads (stress). Every result must be one that some order of the same operations, run one at a time,
 * could give.
 */
class GateLincheckTest {

    /**
     * Admission is linearizable: a request is admitted exactly when the gate is open at some instant within the call,
     * so none is admitted after a {@code close()} returned and none refused after an {@code open()} returned. Closing
     * and opening are one controlling thread's (the gate's contract), hence their non-parallel group.
     */
    public static class Admission {
        private final Gate gate = new Gate();

        /** @return whether the request was admitted (it leaves at once) */
        @Operation
        public boolean request() {
            if (!gate.tryEnter()) {
                return false;
            }
            gate.exit();
            return true;
        }

        @Operation(nonParallelGroup = "blade-gc")
        public boolean close() {
            return gate.close();
        }

        @Operation(nonParallelGroup = "blade-gc")
        public void open() {
            gate.open();
        }

        @Operation
        public boolean isOpen() {
            return gate.isOpen();
        }
    }

    /**
     * Drained collections and requests are kept apart: Blade's gc thread closes the gate, waits for the trailers,
     * collects and opens, while requests come and go. One at a time, no request is ever inside a collection and every
     * drain finishes; an interleaving where an admitted request sees the collection running, or where the drain
     * times out although every request leaves, fails the check.
     */
    public static class Drain {
        private final Gate gate = new Gate();
        private volatile boolean collecting;

        /** @return {@code false} only when the request was admitted and saw a collection running */
        @Operation
        public boolean request() {
            if (!gate.tryEnter()) {
                return true; // shed: kept apart
            }
            boolean overlapped = collecting;
            gate.exit();
            return !overlapped;
        }

        /** @return whether the trailers drained before the timeout */
        @Operation(nonParallelGroup = "blade-gc")
        public boolean collect() {
            gate.close();
            try {
                boolean drained = gate.awaitDrained(Duration.ofSeconds(10));
                collecting = true;
                collecting = false;
                return drained;
            } finally {
                gate.open();
            }
        }
    }

    @Test
    void admissionIsLinearizableInEveryInterleaving() {
        modelChecking().check(Admission.class);
    }

    @Test
    void admissionIsLinearizableOnRealThreads() {
        stress().check(Admission.class);
    }

    @Test
    void drainKeepsRequestsOutOfCollectionsInEveryInterleaving() {
        modelChecking().check(Drain.class);
    }

    @Test
    void drainKeepsRequestsOutOfCollectionsOnRealThreads() {
        stress().check(Drain.class);
    }

    private static ModelCheckingOptions modelChecking() {
        return new ModelCheckingOptions().iterations(20).invocationsPerIteration(1_000).threads(3)
            .actorsPerThread(3);
    }

    private static StressOptions stress() {
        return new StressOptions().iterations(15).invocationsPerIteration(1_000).threads(3).actorsPerThread(3);
    }
}
