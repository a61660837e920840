package io.bladegc.coordinator.slots;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.SlotEvent;
import org.junit.jupiter.api.Test;

class GovernorTest {
    private final Governor governor = new Governor();

    private void collect(String node, long gcId, long grantedAt, long releasedAt) {
        governor.event(new SlotEvent(SlotEvent.Type.GRANTED, node, gcId, gcId, grantedAt, ""));
        governor.event(new SlotEvent(SlotEvent.Type.RELEASED, node, gcId, gcId, releasedAt, ""));
    }

    /** Three members each holding 400 ms of every 500: 2.4 slots needed. */
    private long overloaded(long from, long until) {
        long t = from;
        for (long id = from / 500 + 1; t < until; id++, t += 500) {
            collect("a", id, t, t + 400);
            collect("b", id, t, t + 400);
            collect("c", id, t, t + 400);
        }
        return t;
    }

    @Test
    void stepsDownOnlyOnceTheDemandHasExceededTheSlotsForAWhile() {
        long t = overloaded(0, 2_000);
        assertThat(governor.demand(t)).isGreaterThan(2);
        assertThat(governor.judge(1, t)).as("the demand comes to exceed the slot: said, not yet acted on")
            .singleElement().asString().contains("exceeds the 1 slot(s)");
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
        t = overloaded(t, t + Governor.STEP_DOWN_MILLIS - 500);
        assertThat(governor.judge(1, t)).isEmpty();
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
        t = overloaded(t, t + 1_000);
        assertThat(governor.judge(1, t)).singleElement().asString().startsWith("stepping down")
            .contains("G1");
        assertThat(governor.mode()).isEqualTo(Governor.Mode.OBSERVE);
    }

    @Test
    void tooFewMembersToGrantAnythingIsNotJudged() {
        long t = overloaded(0, 8_000);
        for (long now = t; now < t + 2 * Governor.STEP_DOWN_MILLIS; now += 100) {
            assertThat(governor.judge(0, now)).as("one member and min-healthy 1: nothing to hide, nothing to say")
                .isEmpty();
        }
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
    }

    @Test
    void stepsBackUpOnlyOnceTheDemandHasStayedWellUnderTheSlots() {
        long t = overloaded(0, 8_000);
        governor.judge(1, 2_000);
        governor.judge(1, t);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.OBSERVE);
        // observing: the JVMs collect on their own, now every 4 s each; the holds stay as measured (400 ms)
        long id = 100;
        for (long end = t + 40_000; t < end; t += 4_000, id++) {
            governor.unscheduled("a", id, t);
            governor.unscheduled("b", id, t + 1_300);
            governor.unscheduled("c", id, t + 2_600);
        }
        assertThat(governor.demand(t)).as("3 x 400 / 4,000").isLessThan(SlotDemand.FEASIBLE_AGAIN);
        long under = t;
        governor.judge(1, under);
        assertThat(governor.judge(1, under + Governor.STEP_UP_MILLIS - 1)).isEmpty();
        assertThat(governor.mode()).isEqualTo(Governor.Mode.OBSERVE);
        assertThat(governor.judge(1, under + Governor.STEP_UP_MILLIS)).anySatisfy(
            line -> assertThat(line).startsWith("stepping up"));
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
    }

    @Test
    void aDemandBetweenTheBoundsNeitherStepsUpNorCountsTowardsAStepUp() {
        long t = overloaded(0, 8_000);
        governor.judge(1, 2_000);
        governor.judge(1, t);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.OBSERVE);
        long id = 100;
        t = leftToJvm(t, t + 30_000, 1_263, id); // holds of 400 ms: 3 x 400 / 1,263 = 0.95, under 1, not under 0.9
        assertThat(governor.demand(t)).isBetween(SlotDemand.FEASIBLE_AGAIN, 1.0);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.OBSERVE);
        long switched = t;
        t = leftToJvm(t, switched + Governor.STEP_UP_MILLIS - 100, 2_000, id + 1_000); // 0.6 from now on
        assertThat(governor.mode()).as("the time between the bounds did not count").isEqualTo(Governor.Mode.OBSERVE);
        leftToJvm(t, switched + 2 * Governor.STEP_UP_MILLIS, 2_000, id + 2_000);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
    }

    /** Every member's JVM collects on its own every {@code period} ms from {@code from}, judged every 100 ms. */
    private long leftToJvm(long from, long until, long period, long firstId) {
        long t = from;
        for (long id = firstId; t < until; t += 100) {
            if ((t - from) % period < 100) {
                governor.unscheduled("a", id, t);
                governor.unscheduled("b", id, t);
                governor.unscheduled("c", id, t);
                id++;
            }
            governor.judge(1, t);
        }
        return t;
    }

    @Test
    void collectionsThatEscapeWhileTheDemandIsLowDoNotStepDown() {
        // two nodes lined up (the overlap test): a holds the slot for 50 ms of every 2 s, and b, queued behind it,
        // collects on its own each time (its request is cancelled) until its lead time has learned the wait; the
        // schedule is feasible, the escapes come from the lockstep, and hiding is what lets the lead time learn
        long t = 0;
        for (long id = 1; id <= 40; id++, t += 2_000) {
            collect("a", id, t, t + 50);
            governor.event(new SlotEvent(SlotEvent.Type.QUEUED, "b", id, 0, t + 10, ""));
            governor.event(new SlotEvent(SlotEvent.Type.CANCELLED, "b", id, 0, t + 30, "collected on its own"));
            assertThat(governor.judge(1, t + 100)).isEmpty();
        }
        assertThat(governor.demand(t)).isLessThan(0.1);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
    }

    @Test
    void anAcquireSentAgainForTheSameRequestIsNotAnotherCollection() {
        collect("a", 1, 0, 100);
        governor.unscheduled("a", 2, 1_000);
        assertThat(governor.demand(1_000)).as("a hold of 100 ms every 900").isEqualTo(100.0 / 900);
        governor.unscheduled("a", 2, 1_010); // the same request, asked again 10 ms later
        assertThat(governor.demand(1_010)).as("no period of 10 ms").isEqualTo(100.0 / 900);
        governor.unscheduled("a", 3, 2_000);
        assertThat(governor.demand(2_000)).as("then one of 1,000")
            .isEqualTo(100.0 / (900 + SlotDemand.WEIGHT * 100));
    }
}
