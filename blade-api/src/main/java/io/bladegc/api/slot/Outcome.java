package io.bladegc.api.slot;

import java.util.List;

/**
 * What one ledger operation did. Immutable. A call that succeeds answers {@link Status#GRANTED} when the caller
 * then holds a grant and {@link Status#QUEUED} when it waits; {@link Status#OK} otherwise.
 *
 * @param status        the answer
 * @param grant         the caller's grant, when it holds one, else {@code null}
 * @param queuePosition the caller's place in the queue from 1, or -1 when not queued
 * @param message       why, for errors; empty otherwise
 * @param events        everything the call caused, in order, including grants to other nodes (a release frees a
 *                      slot for the next in the queue)
 */
public record Outcome(Status status, Grant grant, int queuePosition, String message, List<SlotEvent> events) {
    public Outcome {
        events = List.copyOf(events);
    }
}
