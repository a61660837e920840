package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.GcDecision;
import io.bladegc.api.GcHandler;
import io.bladegc.api.grant.GrantHolder;
import java.io.IOException;
import java.util.List;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.junit.jupiter.api.Test;

/** {@link Arming}: when a peer starts planning collections, with the ledger's members and the JVM's count given. */
class ArmingTest {
    private static final RaftGroup SLOT_GROUP = RaftGroup.valueOf(RaftGroupId.randomId(),
        RaftPeer.newBuilder().setId("n1").build(), RaftPeer.newBuilder().setId("n2").build(),
        RaftPeer.newBuilder().setId("n3").build());
    private static final GcHandler HOLDER = request -> GcDecision.COLLECT_NOW;

    private final RecordingNode node = new RecordingNode(null, null);
    private final AtomicReference<Set<String>> members = new AtomicReference<>(Set.of("n1", "n2"));
    private final Lines log = new Lines();
    private final AtomicReference<GrantHolder.Overtaken> overtaken =
        new AtomicReference<>(new GrantHolder.Overtaken(0, 0));
    private final AtomicLong clock = new AtomicLong();
    private final Arming arming = new Arming(node, HOLDER, overtaken::get, () -> {
        Set<String> m = members.get();
        if (m == null) {
            throw new IOException("no leader");
        }
        return m;
    }, "n1", SLOT_GROUP, "1 of 3", log, clock::get);

    @Test
    void armsAtTheJvmsFirstCollectionAfterTheSlotGroupIsCompleteWhenEdenLeavesNoRoom() {
        node.lead.set(Arming.ROOM_MILLIS - 1);
        arming.observe();
        assertThat(node.handler()).isNotNull().isNotSameAs(HOLDER);
        node.collections.set(5);
        arming.check();
        assertThat(node.handler()).as("a member missing").isNotSameAs(HOLDER);

        members.set(null);
        arming.check();
        assertThat(node.handler()).as("no leader").isNotSameAs(HOLDER);

        members.set(Set.of("n1", "n2", "n3"));
        arming.check();
        arming.check();
        assertThat(node.handler()).as("complete, but eden not emptied since").isNotSameAs(HOLDER);

        members.set(null); // once complete, the slot group is not read again
        node.collections.incrementAndGet();
        arming.check();
        assertThat(node.handler()).as("the JVM collected since").isSameAs(HOLDER);
        assertThat(log.lines).hasSize(2);
        assertThat(log.lines.get(1)).contains("Blade raft n1: armed after ", "all 3 peers (1 of 3), and the JVM"
            + " collected since;", "the JVM collected on its own 6 times while observing");
    }

    @Test
    void armsAtOnceWhenTheNextCollectionLeavesRoomForAFirstRequest() {
        arming.observe();
        members.set(Set.of("n1", "n2", "n3"));
        node.lead.set(Arming.ROOM_MILLIS - 1);
        arming.check();
        assertThat(node.handler()).as("eden too full").isNotSameAs(HOLDER);
        node.lead.set(Arming.ROOM_MILLIS);
        arming.check();
        assertThat(node.handler()).isSameAs(HOLDER);
        assertThat(log.lines.get(1)).contains("and the JVM's next collection is expected in " + Arming.ROOM_MILLIS
            + " ms;", "the JVM collected on its own 0 times while observing");
    }

    @Test
    void armsAtOnceWhenTheJvmsCollectionCountIsUnknown() {
        RecordingNode unknown = new RecordingNode(null, null);
        unknown.collections.set(-1); // as a node without the collectors' MXBeans answers
        Arming a = new Arming(unknown, HOLDER, overtaken::get, () -> Set.of("n1", "n2", "n3"), "n1", SLOT_GROUP,
            "1 of 3", log, clock::get);
        a.observe();
        a.check();
        assertThat(unknown.handler()).isSameAs(HOLDER);
        assertThat(log.lines.get(1)).contains("an unknown number of times");
    }

    @Test
    void aStoppedArmingNeverArms() {
        node.lead.set(Arming.ROOM_MILLIS - 1);
        arming.observe();
        members.set(Set.of("n1", "n2", "n3"));
        arming.check();
        arming.stop();
        node.collections.incrementAndGet();
        arming.check();
        assertThat(node.handler()).isNotSameAs(HOLDER);
    }

    @Test
    void armsAtOnceWhenTheJvmAllocatesTooLittleToPredictItsNextCollection() {
        arming.observe();
        members.set(Set.of("n1", "n2", "n3"));
        node.lead.set(-1);
        arming.check();
        assertThat(node.handler()).isSameAs(HOLDER);
        assertThat(log.lines.get(1)).contains("the JVM allocates too little to predict its next collection");
    }

    @Test
    void aPeerWhoseJvmOvertakesMostOfItsRequestsStandsAsideLongerEachTimeThenArmsAgain() {
        arming.observe();
        members.set(Set.of("n1", "n2", "n3"));
        overtaken.set(new GrantHolder.Overtaken(3, 40)); // before arming: not counted
        arming.check();
        assertThat(node.handler()).isSameAs(HOLDER);

        overtaken.set(new GrantHolder.Overtaken(3 + Arming.ASIDE_OVERTAKEN, 40 + Arming.ASIDE_OVERTAKEN));
        arming.check();
        assertThat(node.handler()).as("as many planned as overtaken: still planning").isSameAs(HOLDER);
        overtaken.set(new GrantHolder.Overtaken(3 + 2 * Arming.ASIDE_OVERTAKEN + 1,
            40 + 2 * Arming.ASIDE_OVERTAKEN - 1));
        clock.addAndGet(5_000_000_000L);
        arming.check();
        assertThat(node.handler()).as("overtaken more than planned").isNotSameAs(HOLDER);
        assertThat(log.lines.get(2)).isEqualTo("Blade raft n1: standing aside for 600 s: the JVM collected on its own"
            + " before 5 of its last requests, while 3 collections ran under grants (armed 5 s ago); the slot group"
            + " cannot keep this peer's collections apart at this rate, and planning them costs more than the"
            + " collector alone; the JVM collects as it decides until then");

        clock.addAndGet(Arming.FIRST_ASIDE.toNanos() - 1);
        arming.check();
        assertThat(node.handler()).as("within its time aside").isNotSameAs(HOLDER);
        clock.incrementAndGet();
        arming.check();
        assertThat(node.handler()).as("armed again, as at start").isSameAs(HOLDER);

        overtaken.set(new GrantHolder.Overtaken(100, 48));
        arming.check();
        assertThat(log.lines.get(4)).as("the second time twice as long").contains("standing aside for 1200 s");
    }

    @Test
    void armsWhateverTheClocksOrigin() {
        clock.set(Long.MIN_VALUE / 2); // System.nanoTime() may be negative
        arming.observe();
        members.set(Set.of("n1", "n2", "n3"));
        arming.check();
        assertThat(node.handler()).isSameAs(HOLDER);
    }

    @Test
    void aPeerWhoseJvmOvertakesAFewRequestsKeepsPlanningAndIsJudgedOnItsLastRequests() {
        arming.observe();
        members.set(Set.of("n1", "n2", "n3"));
        arming.check();
        overtaken.set(new GrantHolder.Overtaken(Arming.ASIDE_OVERTAKEN - 1, 0));
        arming.check();
        assertThat(node.handler()).as("too few overtaken").isSameAs(HOLDER);
        overtaken.set(new GrantHolder.Overtaken(Arming.ASIDE_OVERTAKEN - 1, 100));
        arming.check();
        overtaken.set(new GrantHolder.Overtaken(2 * Arming.ASIDE_OVERTAKEN - 2, 100));
        arming.check();
        assertThat(node.handler()).as("too few overtaken since").isSameAs(HOLDER);
        overtaken.set(new GrantHolder.Overtaken(2 * Arming.ASIDE_OVERTAKEN - 1, 100));
        arming.check();
        assertThat(node.handler()).as("its last requests mostly overtaken, however many were planned before")
            .isNotSameAs(HOLDER);
    }

    /** Collects what is logged. */
    private static final class Lines implements System.Logger {
        final List<String> lines = new CopyOnWriteArrayList<>();

        @Override
        public String getName() {
            return "lines";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            lines.add(msg);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            lines.add(format);
        }
    }
}
