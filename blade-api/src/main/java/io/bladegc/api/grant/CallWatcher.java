package io.bladegc.api.grant;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Waits for a ledger call while watching the node: the wait ends early when the JVM collected on its own or a newer
 * GC request came, and it never lasts longer than the bound, whatever the port does; a call the wait ends without is
 * cancelled.
 *
 * <p>Thread-safe; stateless between calls.
 */
final class CallWatcher {
    /** How often the node is looked at while a call is out. */
    static final long POLL_MILLIS = 5;

    /** What waiting ended with: the call's value, its failure, or something local that came first. */
    record Waited<T>(T value, SlotPortException failure, boolean collected, boolean superseded) {
        static <T> Waited<T> of(T value) {
            return new Waited<>(value, null, false, false);
        }

        static <T> Waited<T> failed(SlotPortException e) {
            return new Waited<>(null, e, false, false);
        }
    }

    private final long boundNanos;
    private final BooleanSupplier superseded;

    /**
     * @param boundNanos the longest a call may be out
     * @param superseded whether a newer GC request came
     */
    CallWatcher(long boundNanos, BooleanSupplier superseded) {
        this.boundNanos = boundNanos;
        this.superseded = superseded;
    }

    /**
     * @param call      the call that is out
     * @param collected whether the JVM collected since the request was made
     * @return what came first; a call still out when the wait ends otherwise is cancelled (a port abandons it: an
     *     acquire not yet sent is then never sent, so that it cannot reach the ledger after the holder withdrew its
     *     request), and one still out at the bound counts as failed
     */
    <T> Waited<T> await(CompletableFuture<T> call, BooleanSupplier collected) {
        long deadline = System.nanoTime() + boundNanos;
        while (true) {
            try {
                return Waited.of(call.get(POLL_MILLIS, TimeUnit.MILLISECONDS));
            } catch (TimeoutException e) {
                // still out: look at the node
            } catch (ExecutionException e) {
                return Waited.failed(e.getCause() instanceof SlotPortException s ? s
                    : new SlotPortException("failed: " + e.getCause(), false, e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Waited.failed(new SlotPortException("interrupted", false, e));
            }
            if (collected.getAsBoolean()) {
                call.cancel(true);
                return new Waited<>(null, null, true, false);
            }
            if (superseded.getAsBoolean()) {
                call.cancel(true);
                return new Waited<>(null, null, false, true);
            }
            if (System.nanoTime() - deadline > 0) {
                call.cancel(true);
                return Waited.failed(new SlotPortException("no answer within " + boundNanos / 1_000_000 + " ms", true,
                    null));
            }
        }
    }
}
