package io.bladegc.ratis;

import io.bladegc.api.grant.Released;
import io.bladegc.api.grant.SlotAnswer;
import io.bladegc.api.grant.SlotPort;
import io.bladegc.api.grant.SlotPortException;
import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.QueueEntry;
import io.bladegc.api.slot.Status;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The slot group (flow 3) as the grant-holder's {@link SlotPort}: {@code acquire} is one write through the Raft log,
 * then reads of the ledger every {@value #POLL_MILLIS} ms (no log entry per look) until this peer's request is granted,
 * is gone, or the wait is over. A grant's lease end is the ledger's {@code deadline} minus the answering leader's
 * clock ({@link SlotGroupView#clock()}), counted from when that read was sent on this JVM's monotonic clock: this
 * peer's own wall clock is never compared with anything.
 *
 * <p>An {@code acquire} write and a {@code cancel} of this peer go to the log one after the other, never both at once:
 * a cancel sent while the acquire was still on its way could be applied first, and the late acquire would then leave
 * a grant nobody holds (the next request was refused, "holds a grant for gc 6", and the JVM collected without one).
 *
 * <p>Thread-safe; the waits run on one daemon thread, {@value #THREAD_NAME}.
 */
final class SlotGroupPort implements SlotPort, AutoCloseable {
    static final String THREAD_NAME = "blade-raft-slots";
    private static final long POLL_MILLIS = 5;

    private final SlotClient slots;
    private final String self;
    /** Held while an acquire or a cancel of this peer is on its way to the log. */
    private final Object writes = new Object();
    /** The highest GC id cancelled so far: an acquire for it or an older one, not yet sent, is not sent; guarded. */
    private long cancelledUpTo = Long.MIN_VALUE;
    private final ExecutorService waits = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, THREAD_NAME);
        t.setDaemon(true);
        return t;
    });

    SlotGroupPort(SlotClient slots, String self) {
        this.slots = slots;
        this.self = self;
    }

    /** Always askable: a peer registers its holder only once the slot group has a leader and all its members. */
    @Override
    public String unavailable() {
        return null;
    }

    @Override
    public CompletableFuture<SlotAnswer> acquire(Ask ask, long waitMillis) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return ask(ask, waitMillis);
            } catch (SlotPortException e) {
                throw new CompletionException(e);
            }
        }, waits);
    }

    private SlotAnswer ask(Ask ask, long waitMillis) throws SlotPortException {
        long gcId = ask.gcId();
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        Outcome o;
        synchronized (writes) {
            if (gcId <= cancelledUpTo) {
                return SlotAnswer.cancelled(); // withdrawn before it was sent
            }
            o = call(() -> slots.acquire(self, ask));
        }
        if (o.status() == Status.UNKNOWN_NODE) {
            throw new SlotPortException("slot group: " + self + " is not a member (" + o.message() + ")", false,
                new NotAMember());
        }
        if (o.status() != Status.GRANTED && o.status() != Status.QUEUED) {
            throw new SlotPortException("slot group: acquire answered " + o.status() + ": " + o.message(), false,
                null);
        }
        int position = Math.max(0, o.queuePosition());
        while (true) {
            long sent = System.nanoTime();
            SlotGroupView view;
            try {
                view = call(slots::view);
            } catch (SlotPortException e) {
                // the request is in the ledger, queued or granted: the holder must withdraw it, as after a timeout
                throw new SlotPortException(e.getMessage() + "; the request is in the ledger", true, e.getCause());
            }
            for (Grant g : view.slots().collecting()) {
                if (g.node().equals(self) && g.gcId() == gcId) {
                    return SlotAnswer.granted(g.epoch(), sent + TimeUnit.MILLISECONDS.toNanos(g.deadline()
                        - view.clock()), g.full());
                }
            }
            boolean queued = false;
            int at = 0;
            for (QueueEntry q : view.slots().queue()) {
                at++;
                if (q.node().equals(self) && q.gcId() == gcId) {
                    queued = true;
                    position = at;
                }
            }
            if (!queued) {
                return SlotAnswer.cancelled(); // expired, or this peer was lost meanwhile: the holder asks again
            }
            if (System.nanoTime() - end > 0) {
                return SlotAnswer.queued(position);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SlotPortException("interrupted while queued", false, e);
            }
        }
    }

    @Override
    public boolean recover(long gcId, SlotPortException failure) {
        if (failure.timedOut()) {
            cancel(gcId); // the ask may still be answered: do not leave a request queued or a slot taken
            return false;
        }
        if (!(failure.getCause() instanceof NotAMember)) {
            return false;
        }
        try {
            return slots.join(self).status() == Status.OK;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public Released release(long epoch, long pauseMillis) {
        try {
            Outcome o = slots.release(self, epoch, pauseMillis);
            if (o.status() == Status.OK) {
                return Released.released();
            }
            // the lease ended: STALE_EPOCH, or UNKNOWN_NODE when this peer was lost as a member too
            return new Released(Released.Kind.STALE, "release refused (" + o.status() + "): " + o.message());
        } catch (IOException e) {
            return new Released(Released.Kind.NOT_DELIVERED, "release not delivered (" + e.getMessage()
                + "); the lease ends on its own");
        }
    }

    @Override
    public String cancel(long gcId) {
        try {
            synchronized (writes) { // after an acquire still on its way: see the class comment
                cancelledUpTo = Math.max(cancelledUpTo, gcId);
                slots.cancel(self, gcId);
            }
            return "cancelled in the slot group";
        } catch (IOException e) {
            return "cancel failed (" + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        waits.shutdownNow();
    }

    private interface Call<T> {
        T run() throws IOException;
    }

    /**
     * @throws SlotPortException timed out when the call got no answer within the client's timeout: it may still be
     *     applied (an acquire not withdrawn then left a grant nobody used, and the other peers queued behind it for
     *     its whole lease)
     */
    private static <T> T call(Call<T> c) throws SlotPortException {
        try {
            return c.run();
        } catch (IOException e) {
            throw new SlotPortException("slot group unavailable (" + e.getMessage() + ")",
                e.getCause() instanceof TimeoutException, e);
        }
    }

    /** The marker of a failure that joining again cures. */
    private static final class NotAMember extends Exception {
        private static final long serialVersionUID = 1L;

        NotAMember() {
            super("not a member", null, false, false);
        }
    }
}
