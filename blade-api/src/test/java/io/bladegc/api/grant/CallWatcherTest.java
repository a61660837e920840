package io.bladegc.api.grant;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A call the holder stops waiting for is cancelled, so that a port abandons it: an acquire still on its way when the
 * JVM collected must not reach the ledger after the holder's cancel (issue 33).
 */
class CallWatcherTest {
    private static final long BOUND = TimeUnit.SECONDS.toNanos(10);

    @Test
    void aCallStillOutWhenTheJvmCollectedIsCancelled() {
        CompletableFuture<String> call = new CompletableFuture<>();
        CallWatcher.Waited<String> w = new CallWatcher(BOUND, () -> false).await(call, () -> true);
        assertThat(w.collected()).isTrue();
        assertThat(call).isCancelled();
    }

    @Test
    void aCallStillOutWhenANewerRequestCameIsCancelled() {
        CompletableFuture<String> call = new CompletableFuture<>();
        CallWatcher.Waited<String> w = new CallWatcher(BOUND, () -> true).await(call, () -> false);
        assertThat(w.superseded()).isTrue();
        assertThat(call).isCancelled();
    }

    @Test
    void aCallStillOutAtTheBoundIsCancelledAndFails() {
        CompletableFuture<String> call = new CompletableFuture<>();
        CallWatcher.Waited<String> w = new CallWatcher(TimeUnit.MILLISECONDS.toNanos(20), () -> false)
            .await(call, () -> false);
        assertThat(w.failure()).isNotNull();
        assertThat(w.failure().timedOut()).isTrue();
        assertThat(call).isCancelled();
    }

    @Test
    void anAnsweredCallIsTakenAsItIs() {
        CallWatcher.Waited<String> w = new CallWatcher(BOUND, () -> true)
            .await(CompletableFuture.completedFuture("granted"), () -> true);
        assertThat(w.value()).isEqualTo("granted");
        assertThat(w.collected()).isFalse();
    }
}
