package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.SlotEvent;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The last {@code capacity} ledger events, oldest first. Not thread-safe: used in {@link SlotExecutor} tasks only.
 */
final class RecentEvents {
    private final int capacity;
    private final ArrayDeque<SlotEvent> events;

    RecentEvents(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.events = new ArrayDeque<>(capacity);
    }

    void add(SlotEvent event) {
        if (events.size() == capacity) {
            events.removeFirst();
        }
        events.addLast(event);
    }

    /** @return a copy, oldest first */
    List<SlotEvent> snapshot() {
        return List.copyOf(events);
    }
}
