package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bladegc.api.GcRequest;
import io.bladegc.api.Generation;
import io.bladegc.api.grant.GrantHolder;
import io.bladegc.api.grant.Preparation;
import io.bladegc.api.grant.SlotAnswer;
import io.bladegc.api.grant.SlotPortException;
import io.bladegc.api.slot.Ask;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.testkit.LocalRaftGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing that ignores clocks: the slot group's replicas stamp the ledger with clocks an hour off this JVM's wall
 * clock, and the grant-holder still times a lease on its own monotonic clock, from the ledger's "time left" counted
 * from when its read was sent. A holder that compared the ledger's deadline with its own wall clock would see an hour
 * more (or less) of lease than there is. And a call the slot group did not answer in time counts as timed out, so
 * that the holder withdraws the request (it may still be applied).
 */
@Tag("cluster")
class SlotGroupPortTest {
    private static final long HOUR = TimeUnit.HOURS.toMillis(1);

    @TempDir
    Path dir;
    private LocalRaftGroup group;
    private SlotClient slots;
    private SlotGroupPort port;

    private void start(long clockOffsetMillis, Duration lease) throws Exception {
        SlotPolicy policy = QuorumPolicy.of(3, lease, Duration.ofSeconds(30));
        group = new LocalRaftGroup(dir, 3, (g, id) -> gid -> new SlotStateMachine(policy,
            () -> System.currentTimeMillis() + clockOffsetMillis));
        group.startAll();
        slots = SlotClient.connect(group.group(), group.properties(null), Duration.ofSeconds(10));
        for (String n : new String[] {"n1", "n2", "n3"}) {
            slots.join(n);
        }
        port = new SlotGroupPort(slots, "n1");
    }

    @AfterEach
    void stop() throws Exception {
        if (port != null) {
            port.close();
        }
        if (slots != null) {
            slots.close();
        }
        if (group != null) {
            group.close();
        }
    }

    @Test
    void aLeaseStampedByAClockAnHourAheadEndsOnTimeOnTheHoldersMonotonicClock() throws Exception {
        assertLeaseEndsOnTime(HOUR);
    }

    @Test
    void aLeaseStampedByAClockAnHourBehindEndsOnTimeOnTheHoldersMonotonicClock() throws Exception {
        assertLeaseEndsOnTime(-HOUR);
    }

    /**
     * The grant's real start is known here from its {@code grantedAt} (the ledger's clock, this JVM's wall clock plus
     * the offset): the holder's lease must end no later than a lease after it (a few milliseconds for the ledger's
     * millisecond stamps), and not much earlier either (at most the time the ask took).
     */
    private void assertLeaseEndsOnTime(long offset) throws Exception {
        Duration lease = Duration.ofSeconds(10);
        start(offset, lease);
        long before = System.nanoTime();
        SlotAnswer a = port.acquire(Ask.young(1, 100), 1_000).get(10, TimeUnit.SECONDS);
        long after = System.nanoTime();
        assertThat(a.kind()).isEqualTo(SlotAnswer.Kind.GRANTED);
        Grant g = slots.view().slots().collecting().get(0);
        long grantedNanos = System.nanoTime()
            - TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis() + offset - g.grantedAt());
        assertThat(a.leaseEndNanos()).as("no later than a lease after the grant (2 ms for millisecond stamps)")
            .isLessThanOrEqualTo(grantedNanos + lease.toNanos() + TimeUnit.MILLISECONDS.toNanos(2));
        assertThat(a.leaseEndNanos()).as("and not an hour off: short of a lease after the ask by at most the time "
            + "the ask took (the read that saw the grant may have waited that long)")
            .isGreaterThan(before + lease.toNanos() - (after - before) - TimeUnit.MILLISECONDS.toNanos(2));
    }

    @Test
    void aShortLeaseFromAClockAnHourAheadIsFencedNotCollectedUnder() throws Exception {
        start(HOUR, Duration.ofSeconds(1)); // a wall-clock holder would see an hour and a second left
        RecordingNode node = new RecordingNode(null, group.leader(group.group().getGroupId()));
        try (GrantHolder holder = new GrantHolder(node, port, Preparation.NONE,
            RaftBlade.settings(RaftBladeOptions.defaults()), RaftBlade.HOLDER_THREAD, "raft test ",
            System.getLogger("test"))) {
            holder.start();
            // needs the pause (900 ms) and the margin (200 ms) inside a one-second lease: fenced
            holder.onGcRequest(new GcRequest(1, 1 << 20, 1 << 20, Duration.ofMillis(900), Generation.YOUNG));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (RaftGrantHolderTest.stat(holder, "Fenced") == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(RaftGrantHolderTest.stat(holder, "Fenced")).isEqualTo(1);
            assertThat(node.collections.get()).as("never collects under a lease too short for its pause").isZero();
            // the holder counts the fencing, then cancels the grant at the ledger: wait for that write
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!slots.view().slots().collecting().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(slots.view().slots().collecting()).as("the fenced grant is given back").isEmpty();
        }
    }

    /**
     * The client's own timeout is a timeout: the acquire may still reach the log, so the holder must cancel it. Taken
     * for an outright failure it was left in the ledger: under load a peer's acquire was answered only after the
     * client had given up, the peer held a grant it never used ("holds a grant for gc 3", its next request refused)
     * and the two others queued behind it, their JVMs collecting on their own, for its whole lease.
     */
    @Test
    void anAcquireTheSlotGroupDoesNotAnswerInTimeIsTimedOutSoThatTheHolderWithdrawsIt() throws Exception {
        start(0, Duration.ofSeconds(10));
        List<RaftPeerId> ids = group.group().getPeers().stream().map(p -> p.getId()).toList();
        group.kill(ids.get(1));
        group.kill(ids.get(2)); // no majority: no write is answered
        try (SlotClient shortCalls = SlotClient.connect(group.group(), group.properties(null), Duration.ofMillis(500));
             SlotGroupPort impatient = new SlotGroupPort(shortCalls, "n1")) {
            ExecutionException e = catchThrowableOfType(() -> impatient.acquire(Ask.young(1, 100), 1_000)
                .get(30, TimeUnit.SECONDS), ExecutionException.class);
            assertThat(e).as("the acquire failed").isNotNull();
            assertThat(e.getCause()).isInstanceOf(SlotPortException.class);
            SlotPortException failure = (SlotPortException) e.getCause();
            assertThat(failure.timedOut()).as("%s", failure.getMessage()).isTrue();
        }
    }
}
