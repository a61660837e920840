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
 * @param invitedBy     for a heartbeat: the member during whose near full collection the caller would come due, so
 *                      that it should take its next young collection now ({@link Invitations}); {@code null} for none
 */
public record Outcome(Status status, Grant grant, int queuePosition, String message, List<SlotEvent> events,
                      String invitedBy) {
    public Outcome {
        events = List.copyOf(events);
    }

    /** An outcome that invites nobody. */
    public Outcome(Status status, Grant grant, int queuePosition, String message, List<SlotEvent> events) {
        this(status, grant, queuePosition, message, events, null);
    }

    /** @return this outcome, inviting the caller to collect now because of {@code member}'s full collection */
    public Outcome invitedBy(String member) {
        return new Outcome(status, grant, queuePosition, message, events, member);
    }
}
