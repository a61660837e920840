package io.bladegc.coordinator.slots;

import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotLedger;
import io.bladegc.api.slot.SlotView;
import java.util.List;

/** A {@link SlotLedger} in this process: the standalone coordinator's ledger. Not thread-safe, as the ledger. */
final class LocalLedger implements Ledger {
    private final SlotLedger ledger;

    LocalLedger(SlotLedger ledger) {
        this.ledger = ledger;
    }

    @Override
    public Outcome join(String node, long now) {
        return ledger.join(node, now);
    }

    @Override
    public Outcome heartbeat(String node, long dueInMillis, long fullDueInMillis, long now) {
        return ledger.heartbeat(node, dueInMillis, fullDueInMillis, now);
    }

    @Override
    public Outcome leave(String node, long now) {
        return ledger.leave(node, now);
    }

    @Override
    public Outcome acquire(String node, Ask ask, long now) {
        return ledger.acquire(node, ask, now);
    }

    @Override
    public Outcome release(String node, long epoch, long pauseMillis, long now) {
        return ledger.release(node, epoch, pauseMillis, now);
    }

    @Override
    public Outcome renew(String node, long epoch, long now) {
        return ledger.renew(node, epoch, now);
    }

    @Override
    public Outcome cancel(String node, long gcId, long now) {
        return ledger.cancel(node, gcId, now);
    }

    @Override
    public List<SlotEvent> tick(long now) {
        return ledger.tick(now);
    }

    @Override
    public SlotView view() {
        return ledger.view();
    }

    @Override
    public Grant grantOf(String node) {
        return ledger.grantOf(node);
    }

    @Override
    public int queuePosition(String node, long gcId) {
        return ledger.queuePosition(node, gcId);
    }

    @Override
    public int memberCount() {
        return ledger.memberCount();
    }

    @Override
    public int collectingCount() {
        return ledger.collectingCount();
    }

    @Override
    public int queueLength() {
        return ledger.queueLength();
    }

    @Override
    public boolean serving() {
        return true;
    }

    @Override
    public String replicaDescription() {
        return "";
    }

    @Override
    public void close() {
        // nothing held
    }
}
