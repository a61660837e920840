package io.bladegc.benchmarks.raftkv;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.slot.Grant;
import io.bladegc.ratis.QuorumPolicy;
import io.bladegc.ratis.RaftBlade;
import io.bladegc.ratis.SlotClient;
import io.bladegc.ratis.SlotGroupView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Blade's Raft invariants under real collections: three {@link KvServer} JVMs with the agent and small young
 * generations ({@link KvCluster}), so the peers collect every second or so under grants of the slot ledger while
 * clients write. The window starts once every peer said it is armed (the writers' load makes them arm) and has
 * collected under a grant. A sampler, independent of the code under test, reads every 25 ms the slot ledger (how many
 * peers hold a grant) and each peer's own role and term; afterwards the peers' logs give every grant each peer
 * collected under, and each JVM's own GC log ({@link GcPauses}) every pause it took. Checked: never two peers paused at
 * once (from the JVMs' GC logs, not from Blade's); never more peers holding a grant than the quorum allowance (one of
 * three) at any sample; never two leaders in one term; no epoch granted twice (to two peers, or twice to one); a pause
 * the leader took without handing off (leader in its own answers just before and just after it, in one term) stays
 * under half the shortest election timeout, and they are counted; and the run was not idle (collections under grants
 * happened).
 *
 * <p>The first check counts every pause in the window, also one the JVM ran on its own (an escape: a prediction missed,
 * which the ledger does not see), and that is deliberate: what Blade for Raft promises is a majority of peers never
 * paused together, and two pauses at once cost the group that majority however they began. That the ledger itself kept
 * its grants apart is the second check's ("peers holding a grant"), from the ledger's own state.
 */
@Tag("cluster")
class RaftInvariantsIT {
    private static final Pattern GRANTED = Pattern.compile("Blade raft \\S+ GC #\\d+ \\w+ granted \\(epoch (\\d+)");

    @Test
    void collectingPeersStayWithinTheAllowanceAndEachTermHasOneLeader() throws Exception {
        int allowance = QuorumPolicy.of(3, Duration.ofSeconds(10), Duration.ofSeconds(3)).allowance(3);
        try (KvCluster cluster = KvCluster.start("invariants")) {
            List<long[]> roleSamples = new ArrayList<>(); // {time answered, index in ids, 1 if leader, term}
            List<RaftPeerId> ids = List.copyOf(cluster.ids());
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong writes = new AtomicLong();
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                Thread t = new Thread(() -> write(cluster, running, writes), "writer-" + w);
                t.start();
                writers.add(t);
            }
            // a peer arms once its JVM's next collection leaves room for a first request: under the writers' load, at
            // the latest at its first collection. The window starts once every peer has collected under a grant, so
            // that each plans with a schedule lead it measured: before its first grant a peer asks with a lead it
            // guessed (RaftBlade.FIRST_LEAD), and its JVM collecting on its own meanwhile is an outcome the protocol
            // allows (the ledger cannot grant faster than the slot group answers). A Raft group's JVMs allocate in
            // step, so such first-round escapes come together: one CI run failed on two of them 0.07 ms apart, right
            // after arming, the slot group's first grant still on its way 443 ms after the first request.
            for (RaftPeerId id : cluster.ids()) {
                awaitLine(cluster, id, Pattern.compile(Pattern.quote("Blade raft " + id + ": armed after")), "armed");
            }
            for (RaftPeerId id : cluster.ids()) {
                awaitLine(cluster, id, GRANTED, "collected under a grant");
            }
            long windowStart = System.currentTimeMillis();
            int samples = 0;
            int maxCollecting = 0;
            Map<Long, Set<RaftPeerId>> leadersByTerm = new HashMap<>();
            RaftProperties properties = new RaftProperties();
            RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(1, TimeUnit.SECONDS));
            try (SlotClient slots = SlotClient.connect(RaftBlade.slotGroup(cluster.group()), new RaftProperties(),
                     Duration.ofSeconds(2));
                 RaftClient probe = RaftClient.newBuilder().setRaftGroup(cluster.group()).setProperties(properties)
                     .setRetryPolicy(RetryPolicies.noRetry()).build()) {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
                while (System.nanoTime() < end) {
                    try {
                        SlotGroupView view = slots.view();
                        List<Grant> collecting = view.slots().collecting();
                        maxCollecting = Math.max(maxCollecting, collecting.size());
                        assertThat(collecting.size()).as("peers holding a grant at one sample: %s", collecting)
                            .isLessThanOrEqualTo(allowance);
                        samples++;
                    } catch (IOException e) {
                        // the slot group changing leader: no sample this time
                    }
                    for (RaftPeerId id : ids) {
                        RoleInfoProto role = role(probe, cluster, id);
                        // term 0 is "not reported" (no leader is ever elected in term 0): such a sample is skipped
                        if (role != null && role.getRole() == RaftPeerRole.LEADER
                            && role.getLeaderInfo().getTerm() > 0) {
                            leadersByTerm.computeIfAbsent(role.getLeaderInfo().getTerm(), t -> new HashSet<>()).add(id);
                            roleSamples.add(new long[] {System.currentTimeMillis(), ids.indexOf(id), 1,
                                role.getLeaderInfo().getTerm()});
                        } else if (role != null) {
                            roleSamples.add(new long[] {System.currentTimeMillis(), ids.indexOf(id), 0, 0});
                        }
                    }
                    Thread.sleep(25);
                }
            } finally {
                running.set(false);
                for (Thread t : writers) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                }
            }
            long windowEnd = System.currentTimeMillis();
            assertThat(samples).as("ledger samples").isGreaterThan(100);
            List<GcPauses> pauses = new ArrayList<>();
            for (RaftPeerId id : ids) {
                GcPauses.read(id.toString(), cluster.gcLog(id)).stream()
                    .filter(p -> p.startMillis() >= windowStart && p.endMillis() <= windowEnd).forEach(pauses::add);
            }
            List<String> overlapping = new ArrayList<>();
            for (int i = 0; i < pauses.size(); i++) {
                for (int j = i + 1; j < pauses.size(); j++) {
                    GcPauses a = pauses.get(i);
                    GcPauses b = pauses.get(j);
                    if (!a.peer().equals(b.peer()) && a.overlaps(b)) {
                        overlapping.add(a + " / " + b);
                    }
                }
            }
            System.out.printf("RaftInvariantsIT: %d pause pairs of two peers at once, from the JVMs' GC logs: %s%n",
                overlapping.size(), overlapping);
            // The ledger keeps granted collections apart; a collection the JVM runs on its own is outside it. One CI
            // run had such a pair right after arming (n3 armed with eden nearly full and collected on its own before
            // its holder asked, while n1 collected under the first grant): a peer now arms only when its next
            // collection leaves room for a first request (Arming), and the window starts after the first grants.
            // Another had one during a leader's hand-off (n3's took 729 ms, its JVM collected meanwhile while n1
            // collected under its grant): a hand-off now ends at the leader's step-down, and its catch-up wait no
            // longer chases a moving last entry (LeadershipHandoff). A third had a peer's full collection of 280 ms
            // beside another's young one: in 128 MiB heaps the old generation filled every few seconds (a put's reply,
            // the 2 KiB value it replaced, stays a minute in Ratis' retry cache) and the peers took full collections
            // of 200-450 ms back to back, where no schedule keeps three peers' young collections clear of them;
            // KvCluster's peers now keep less in memory and have room in their heaps. Over longer windows full
            // collections still come (4 of 6 one-minute runs had such a pair).
            assertThat(overlapping).as("pauses of two peers at once after the first grants").isEmpty();
            List<GcPauses> asLeader = pauses.stream().filter(p -> ledThrough(p, ids, roleSamples)).toList();
            long bound = KvServer.ELECTION_TIMEOUT_MIN.toLong(TimeUnit.MILLISECONDS) / 2;
            System.out.printf("RaftInvariantsIT: %d pauses after arming, %d of them by the leader without a hand-off"
                + "%s%n", pauses.size(), asLeader.size(), asLeader.isEmpty() ? "" : ": " + asLeader);
            assertThat(asLeader).as("pauses of a leader that did not hand off, each under half the election timeout")
                .allSatisfy(p -> assertThat(p.millis()).isLessThan(bound));
            assertThat(leadersByTerm).as("leaders seen, by term").isNotEmpty()
                .allSatisfy((term, leaders) -> assertThat(leaders).as("leaders of term %d", term).hasSize(1));

            Map<Long, String> grantedTo = new HashMap<>();
            int grants = 0;
            for (RaftPeerId id : cluster.ids()) {
                String log = Files.readString(Path.of("target", "raftkv", "invariants", id + ".log"));
                // a collection left to the JVM when its grant comes late would land beside another peer's (their edens
                // fill in step): a Raft peer asks at half eden instead (GcHandler.leavesUnplannableToJvm)
                assertThat(log).as("%s's log", id).doesNotContain("leaving the next young collection to the JVM");
                Matcher m = GRANTED.matcher(log);
                while (m.find()) {
                    grants++;
                    String before = grantedTo.put(Long.parseLong(m.group(1)), id.toString());
                    assertThat(before).as("epoch %s granted twice (%s, then %s)", m.group(1), before, id).isNull();
                }
            }
            assertThat(grants).as("collections under grants (writes: %d, max collecting sampled: %d)", writes.get(),
                maxCollecting).isGreaterThanOrEqualTo(3);
        }
    }

    /**
     * @return whether {@code p}'s peer led throughout the pause: its own last answer before the pause and its first
     *     after it both said leader, in the same term (a hand-off, or any leadership change, ends the term)
     */
    private static boolean ledThrough(GcPauses p, List<RaftPeerId> ids, List<long[]> samples) {
        int peer = ids.indexOf(RaftPeerId.valueOf(p.peer()));
        long[] before = null;
        long[] after = null;
        for (long[] s : samples) {
            if (s[1] != peer) {
                continue;
            }
            if (s[0] <= p.startMillis()) {
                before = s;
            } else if (s[0] >= p.endMillis() && after == null) {
                after = s;
            }
        }
        return before != null && after != null && before[2] == 1 && after[2] == 1 && before[3] == after[3];
    }

    private static void awaitLine(KvCluster cluster, RaftPeerId id, Pattern line, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!line.matcher(Files.readString(cluster.log(id))).find()) {
            assertThat(System.nanoTime()).as("%s %s within 60 s", id, what).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static void write(KvCluster cluster, AtomicBoolean running, AtomicLong writes) {
        String value = "x".repeat(2048); // allocation: the peers fill their young generations in seconds
        try (KvClient client = KvClient.connect(cluster.group())) {
            while (running.get() && writes.get() < 200_000) {
                try {
                    client.put("k" + ThreadLocalRandom.current().nextInt(5_000), value);
                    writes.incrementAndGet();
                } catch (IOException e) {
                    // a hand-off in progress: the next put goes to the new leader
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RoleInfoProto role(RaftClient probe, KvCluster cluster, RaftPeerId id) {
        try {
            GroupInfoReply info = probe.getGroupManagementApi(id).info(cluster.group().getGroupId());
            return info.getRoleInfoProto();
        } catch (IOException | RuntimeException e) { // a peer collecting or slow: gRPC's deadline, no sample
            return null;
        }
    }
}
