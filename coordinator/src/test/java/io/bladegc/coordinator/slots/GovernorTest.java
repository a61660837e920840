package io.bladegc.coordinator.slots;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.SlotEvent;
import java.util.ArrayList;
import java.util.List;
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
    void stepsDownAtOnceWhenManyCollectionsEscapeAndTriesAgainLaterWaitingLongerAfterEachFailedTry() {
        List<String> lines = new ArrayList<>();
        long t = escaping(0, 4_000, lines);
        assertThat(governor.mode()).as("half escaped, but fewer than 20 collections yet").isEqualTo(Governor.Mode.HIDE);
        long down = escaping(t, 20_000, lines);
        assertThat(governor.demand(down)).isLessThan(1);
        assertThat(lines).singleElement().asString().startsWith("stepping down")
            .contains("50 % of the last 20 collections escaped").contains("trying again in 5 s");
        lines.clear();
        t = observing(down, down + Governor.FIRST_RETRY_MILLIS - 100, lines);
        assertThat(governor.mode()).as("the load did not fall").isEqualTo(Governor.Mode.OBSERVE);
        observing(t, down + Governor.FIRST_RETRY_MILLIS + 100, lines);
        assertThat(lines).singleElement().asString().startsWith("stepping up to try hiding collections again");
        lines.clear();
        down = escaping(down + Governor.FIRST_RETRY_MILLIS + 100, down + 30_000, lines);
        assertThat(lines).as("the try failed: down at once, and twice as long a wait").singleElement().asString()
            .contains("trying again in 10 s");
        lines.clear();
        t = observing(down, down + 2 * Governor.FIRST_RETRY_MILLIS + 100, lines);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
        for (long id = 1_000; id < 1_000 + Governor.OUTCOMES; id++, t += 500) { // hiding works now
            collect("a", id, t, t + 50);
            governor.judge(1, t + 100);
        }
        lines.clear();
        escaping(t, t + 30_000, lines);
        assertThat(lines).as("a try that worked resets the wait").singleElement().asString()
            .contains("trying again in 5 s");
    }

    @Test
    void aFallOfTheDemandStepsUpAndResetsTheWaitBetweenTries() {
        List<String> lines = new ArrayList<>();
        long down = escaping(0, 30_000, lines);
        long t = observing(down, down + Governor.FIRST_RETRY_MILLIS + 100, lines);
        t = escaping(t, t + 30_000, lines);
        assertThat(lines.get(lines.size() - 1)).contains("trying again in 10 s");
        lines.clear();
        for (long end = t + 9_000; t < end; t += 100) { // idle: nobody collects
            lines.addAll(governor.judge(1, t));
        }
        assertThat(lines).singleElement().asString().startsWith("stepping up: the slot demand has stayed under");
        lines.clear();
        escaping(t, t + 30_000, lines);
        assertThat(lines).singleElement().asString().contains("trying again in 5 s");
    }

    @Test
    void aFallOfTheLoadTriesHidingAgainAtOnce() {
        List<String> lines = new ArrayList<>();
        governor.allocating("a", 200_000_000);
        governor.allocating("b", 200_000_000);
        long down = escaping(0, 30_000, lines);
        governor.allocating("a", 300_000_000); // the burst goes on: the highest since the step down is 600 MB/s
        governor.allocating("b", 300_000_000);
        lines.clear();
        long t = observing(down, down + 1_000, lines);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.OBSERVE);
        governor.allocating("a", 150_000_000); // half the burst: with one of two out, the other would carry all of it
        governor.allocating("b", 150_000_000);
        t = observing(t, t + 1_500, lines);
        assertThat(governor.mode()).as("300 of 600 MB/s: not under 0.45 of it").isEqualTo(Governor.Mode.OBSERVE);
        governor.allocating("a", 100_000_000); // the burst is over: a third of it
        governor.allocating("b", 100_000_000);
        t = observing(t, t + Governor.LOAD_FELL_MILLIS - 100, lines);
        assertThat(governor.mode()).as("one heartbeat is not yet a fall").isEqualTo(Governor.Mode.OBSERVE);
        observing(t, t + 200, lines);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
        assertThat(lines).singleElement().asString()
            .isEqualTo("stepping up: the members allocate 200 MB/s, under 0.45 of the 600 MB/s since the step down"
                + " (the load fell to where the others can carry the share of the nodes out); hiding collections again");
        assertThat(t + 100 - down).as("before the first try was due").isLessThan(Governor.FIRST_RETRY_MILLIS);
    }

    @Test
    void escapesWhileObservingDoNotCountAgainstTheNextTry() {
        List<String> lines = new ArrayList<>();
        long down = escaping(0, 30_000, lines);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.OBSERVE);
        governor.escaped("b", bEscaped += 7); // b's JVM went on collecting on its own while the coordinator observed
        long t = observing(down, down + Governor.FIRST_RETRY_MILLIS + 100, lines);
        assertThat(governor.mode()).isEqualTo(Governor.Mode.HIDE);
        governor.escaped("b", bEscaped += 9); // its first heartbeat since the step up: those were not the try's
        for (int i = 0; i < Governor.OUTCOMES; i++, t += 500) {
            collect("a", gcIds++, t, t + 50);
            lines.addAll(governor.judge(1, t + 100));
        }
        assertThat(governor.mode()).as("the try hid 20 collections, none escaped").isEqualTo(Governor.Mode.HIDE);
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

    /**
     * Every 500 ms from {@code from}: a holds the slot for 50 ms, and b's JVM collects on its own (b's heartbeat counts
     * one escape more each time); judged after each, the lines into {@code lines}.
     *
     * @return when the coordinator stepped down, or where it stopped at {@code until}
     */
    private long escaping(long from, long until, List<String> lines) {
        long t = from;
        for (; t < until; t += 500) {
            collect("a", gcIds++, t, t + 50);
            governor.escaped("b", bEscaped++);
            lines.addAll(governor.judge(1, t + 300));
            if (governor.mode() == Governor.Mode.OBSERVE) {
                return t + 300;
            }
        }
        return t;
    }

    /** GC ids, for every request here. */
    private long gcIds = 1;
    /** b's escapes as its heartbeats count them. */
    private long bEscaped = 1;

    /** a's and b's JVMs collect on their own every 500 ms (the load did not fall), judged every 100 ms. */
    private long observing(long from, long until, List<String> lines) {
        long t = from;
        for (; t < until; t += 100) {
            if ((t - from) % 500 == 0) {
                governor.unscheduled("a", gcIds, t);
                governor.unscheduled("b", gcIds++, t);
            }
            lines.addAll(governor.judge(1, t));
        }
        return t;
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
    void escapesAreCountedFromTheMembersHeartbeatsFromTheFirstCountOnAndACancelIsNone() {
        for (long id = 1; id <= Governor.OUTCOMES; id++) {
            collect("a", id, id * 500, id * 500 + 50);
        }
        governor.escaped("b", 1_000); // b's first heartbeat: escapes from before it joined are not judged
        governor.event(new SlotEvent(SlotEvent.Type.CANCELLED, "b", 7, 0, 10_400, "queued")); // not itself an escape
        assertThat(governor.escapedShare()).isZero();
        governor.escaped("b", 1_003);
        assertThat(governor.escapedShare()).isEqualTo(3.0 / Governor.OUTCOMES);
        governor.escaped("b", 2); // b's JVM restarted: counting goes on from there
        assertThat(governor.escapedShare()).isEqualTo(3.0 / Governor.OUTCOMES);
        governor.escaped("b", 4);
        assertThat(governor.escapedShare()).isEqualTo(5.0 / Governor.OUTCOMES);
        governor.event(new SlotEvent(SlotEvent.Type.LEFT, "b", 0, 0, 11_000, ""));
        governor.escaped("b", 40); // b joined again: a first count once more
        assertThat(governor.escapedShare()).isEqualTo(5.0 / Governor.OUTCOMES);
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
