package io.bladegc.servlet;

import static org.awaitility.Awaitility.await;

import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import java.time.Duration;

/**
 * Keeps a node's own drains out of a test. A filter that starts a node arms its default handler (close the gate,
 * drain, collect, open), which may fire as soon as the heap watcher sees a collection coming; the tests drive the
 * gate themselves, so they install a handler that always defers and let any drain already under way finish.
 */
final class QuietNode {
    private QuietNode() {
    }

    static BladeNode quiet(BladeNode node) {
        node.register(request -> GcDecision.DEFER);
        // a drain handed to the node's gc thread just before the handler changed closes the gate at once and
        // reopens it within the drain timeout plus one collection
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).until(node.gate()::isOpen);
        return node;
    }
}
