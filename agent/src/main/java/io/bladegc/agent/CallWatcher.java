package io.bladegc.agent;

import io.bladegc.agent.CoordinatorException.Kind;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Waits for a coordinator call while watching the node: the wait ends early when the JVM collected on its own or a
 * newer GC request came, and it never lasts longer than the coordinator timeout plus {@link CoordinatorClient#GRACE},
 * whatever the HTTP client does.
 *
 * <p>Thread-safe; stateless between calls.
 */
final class CallWatcher {
    /** How often the node is looked at while a call is out. */
    static final long POLL_MILLIS = 5;

    /** What waiting ended with: the call's value, its failure, or something local that came first. */
    record Waited<T>(T value, CoordinatorException failure, boolean collected, boolean superseded) {
        static <T> Waited<T> of(T value) {
            return new Waited<>(value, null, false, false);
        }

        static <T> Waited<T> failed(CoordinatorException e) {
            return new Waited<>(null, e, false, false);
        }
    }

    private final Duration timeout;
    private final long boundNanos;
    private final BooleanSupplier superseded;

    /**
     * @param timeout    the coordinator timeout
     * @param superseded whether a newer GC request came
     */
    CallWatcher(Duration timeout, BooleanSupplier superseded) {
        this.timeout = timeout;
        this.boundNanos = timeout.toNanos() + CoordinatorClient.GRACE.toNanos();
        this.superseded = superseded;
    }

    /**
     * @param call      the call that is out
     * @param collected whether the JVM collected since the request was made
     * @return what came first; a call still out at the bound is cancelled and answers {@link Kind#TIMEOUT}
     */
    <T> Waited<T> await(CompletableFuture<T> call, BooleanSupplier collected) {
        long deadline = System.nanoTime() + boundNanos;
        while (true) {
            try {
                return Waited.of(call.get(POLL_MILLIS, TimeUnit.MILLISECONDS));
            } catch (TimeoutException e) {
                // still out: look at the node
            } catch (ExecutionException e) {
                return Waited.failed(CoordinatorAnswers.unwrap(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Waited.failed(new CoordinatorException(Kind.TIMEOUT, -1, "interrupted"));
            }
            if (collected.getAsBoolean()) {
                return new Waited<>(null, null, true, false);
            }
            if (superseded.getAsBoolean()) {
                return new Waited<>(null, null, false, true);
            }
            if (System.nanoTime() - deadline > 0) {
                call.cancel(true);
                return Waited.failed(new CoordinatorException(Kind.TIMEOUT, -1, "no answer within "
                    + timeout.toMillis() + " ms"));
            }
        }
    }
}
