package io.bladegc.coordinator.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.bladegc.api.slot.SlotEvent;
import org.junit.jupiter.api.Test;

class SlotDemandTest {
    private final SlotDemand demand = new SlotDemand();

    private void collect(String node, long grantedAt, long releasedAt) {
        demand.event(new SlotEvent(SlotEvent.Type.GRANTED, node, 1, 1, grantedAt, ""));
        demand.event(new SlotEvent(SlotEvent.Type.RELEASED, node, 1, 1, releasedAt, ""));
    }

    @Test
    void eachMemberNeedsItsHoldOverItsPeriod() {
        for (long t = 0; t < 10_000; t += 1_000) { // a holds 100 ms every second: 0.1 of a slot
            collect("a", t, t + 100);
        }
        for (long t = 0; t < 10_000; t += 2_000) { // b holds 500 ms every 2 s: 0.25
            collect("b", t + 300, t + 800);
        }
        assertThat(demand.slots(9_100)).isCloseTo(0.35, within(1e-9));
        assertThat(demand.judge(1, 9_100)).isNull();
        assertThat(demand.infeasible()).isFalse();
    }

    @Test
    void aCollectionTheJvmRanOnItsOwnShortensThePeriodButHoldsNoSlot() {
        collect("a", 0, 100);
        collect("a", 1_000, 1_100);
        demand.event(new SlotEvent(SlotEvent.Type.CANCELLED, "a", 2, 0, 1_600, "queued"));
        assertThat(demand.slots(1_600)).as("hold 100 over a period of 1,000 then 500 averaged").isCloseTo(
            100.0 / (1_000 + SlotDemand.WEIGHT * (500 - 1_000)), within(1e-9));
    }

    @Test
    void beyondTheSlotsIsInfeasibleUntilWellUnderThemAgain() {
        for (long t = 0; t < 5_000; t += 1_000) {
            collect("a", t, t + 600);
            collect("b", t + 400, t + 1_000);
        }
        assertThat(demand.slots(5_000)).isCloseTo(1.2, within(1e-9));
        assertThat(demand.judge(1, 5_000)).contains("slot demand 1.20 exceeds the 1 slot(s)");
        assertThat(demand.judge(1, 5_000)).as("said once").isNull();
        assertThat(demand.judge(2, 5_000)).contains("back under the 2 slot(s)");
        assertThat(demand.infeasible()).isFalse();
    }

    @Test
    void aMemberThatLeftNeedsNothing() {
        collect("a", 0, 500);
        collect("a", 1_000, 1_500);
        assertThat(demand.slots(1_500)).isEqualTo(0.5);
        demand.event(new SlotEvent(SlotEvent.Type.LOST, "a", 0, 0, 9_000, "silent"));
        assertThat(demand.slots(9_000)).isZero();
    }

    @Test
    void aMemberThatStoppedCollectingNeedsLessAsItsOpenPeriodGrows() {
        collect("a", 0, 500);
        collect("a", 1_000, 1_500); // 500 ms of every 1,000
        assertThat(demand.slots(2_000)).as("its period still open for 500 ms: the average counts").isEqualTo(0.5);
        assertThat(demand.slots(11_500)).as("open for 10 s: 500 ms of 10 s").isEqualTo(0.05);
    }
}
