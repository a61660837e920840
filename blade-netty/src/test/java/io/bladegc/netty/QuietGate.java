package io.bladegc.netty;

import static org.awaitility.Awaitility.await;

import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.GcDecision;
import java.time.Duration;

/**
 * A {@link BladeHttpGate} over the node it starts (GCI mode), with the node's own drains kept out: its handler always
 * defers, so the tests drive the gate themselves. Stop the node with {@code Blade.stopNode()} after the test.
 */
final class QuietGate {
    private QuietGate() {
    }

    static BladeHttpGate start() {
        BladeHttpGate blade = BladeHttpGate.start(BladeOptions.defaults());
        BladeNode node = blade.node();
        node.register(request -> GcDecision.DEFER);
        // a drain handed to the node's gc thread before the handler changed reopens the gate within its timeout
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).until(node.gate()::isOpen);
        return blade;
    }
}
