package io.bladegc.api.internal;

import io.bladegc.api.Generation;
import java.util.concurrent.atomic.AtomicReference;

/** Run in a child JVM by {@link GcTriggerFlagsTest}: forces one old collection and prints what happened. */
public final class ForceOldMain {
    private ForceOldMain() {
    }

    public static void main(String[] args) throws Exception {
        HeapLayout layout = HeapLayout.current();
        AtomicReference<String> cause = new AtomicReference<>("none");
        GcEvents events = GcEvents.listen(layout, c -> {
            if (c.reclaims()) {
                cause.set(c.cause());
            }
        });
        GcTrigger trigger = new GcTrigger(layout);
        long before = layout.collectionCount();
        boolean forced = trigger.force(Generation.OLD);
        events.awaitSeen(layout.collectionCount(), java.time.Duration.ofSeconds(5));
        trigger.done();
        System.out.println("forced=" + forced + " collections=" + (layout.collectionCount() - before)
            + " cause=" + cause.get());
    }
}
