package io.bladegc.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.GcDecision;
import io.bladegc.api.Gate;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** The filter's paths without a server: every admitted request leaves once, however its chain ends. */
class BladeWebFilterTest {
    private BladeWebFilter filter;
    private Gate gate;

    @BeforeEach
    void start() {
        filter = BladeWebFilter.start(BladeOptions.defaults());
        filter.node().register(request -> GcDecision.DEFER);
        gate = filter.node().gate();
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).until(gate::isOpen);
    }

    @AfterEach
    void stop() {
        try {
            filter.close();
        } finally {
            gate.open();
            Blade.stopNode();
        }
    }

    private static MockServerWebExchange exchange() {
        return MockServerWebExchange.from(MockServerHttpRequest.get("/x"));
    }

    @Test
    void aChainThatThrowsLeavesTheGate() {
        Mono<Void> filtered = filter.filter(exchange(), e -> {
            throw new IllegalStateException("boom");
        });
        assertThatThrownBy(filtered::block).hasMessageContaining("boom");
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void aCancelledExchangeLeavesTheGate() {
        Disposable running = filter.filter(exchange(), e -> Mono.never()).subscribe();
        assertThat(gate.inFlight()).isEqualTo(1);
        running.dispose();
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void aClosedGateShedsBeforeTheChain() {
        gate.close();
        AtomicBoolean called = new AtomicBoolean();
        MockServerWebExchange exchange = exchange();
        filter.filter(exchange, e -> {
            called.set(true);
            return Mono.empty();
        }).block();
        assertThat(called).isFalse();
        assertThat(exchange.getResponse().getStatusCode().value()).isEqualTo(503);
        assertThat(exchange.getResponse().getHeaders().getFirst("Retry-After")).matches("[0-9]+");
        assertThat(exchange.getResponse().getHeaders().getFirst("Blade-Retry-After-Ms")).matches("[0-9]+");
        assertThat(filter.shedCount()).isEqualTo(1);
        assertThat(gate.inFlight()).isZero();
    }
}
