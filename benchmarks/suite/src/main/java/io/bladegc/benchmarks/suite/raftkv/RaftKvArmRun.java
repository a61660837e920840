package io.bladegc.benchmarks.suite.raftkv;

import io.bladegc.benchmarks.raftkv.KvServer;
import io.bladegc.benchmarks.suite.SuiteOptions;
import io.bladegc.benchmarks.suite.harness.Arm;
import io.bladegc.benchmarks.suite.harness.MachineCpu;
import io.bladegc.benchmarks.suite.harness.ProcessUsage;
import io.bladegc.benchmarks.suite.harness.StopOnExit;
import io.bladegc.benchmarks.suite.harness.WakeupJitter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

/**
 * One arm of the {@code raft-kv} scenario in one repetition: three fresh {@link KvServer} peers
 * ({@link RaftKvCluster}: one child JVM each, output and GC log in {@code logs/<arm>-rep<N>/<peer>/}), the preload,
 * the load ({@link RaftKvLoad}, interval log {@code <arm>-rep<N>.hlog}, every request of the window in
 * {@code logs/<arm>-rep<N>/requests.csv}), then what the window shows: the peers' output (hand-offs and elections,
 * {@link RaftKvLeadership}), their GC logs ({@link RaftKvLogs}), the group's term ({@code GroupManagementApi}), the
 * machine's and the processes' CPU time and the load generator's wake-ups ({@link WakeupJitter}) during it. Every
 * peer is stopped by pid when the run ends, also on failure. Stateless.
 */
final class RaftKvArmRun {
    private RaftKvArmRun() {
    }

    /**
     * @param arm      the arm (its JVM flags and Blade mode)
     * @param rep      the repetition, from 1
     * @param o        the command line
     * @param workload what the store holds and the puts write
     * @param stop     holds the running cluster, for a shutdown during the run
     * @return what the run measured, or {@link RaftKvRep#failed} with the reason
     */
    static RaftKvRep run(Arm arm, int rep, SuiteOptions o, RaftKvWorkload workload, StopOnExit stop) {
        String id = arm.name() + "-rep" + rep;
        Path logDir = o.out().resolve("logs").resolve(id);
        System.err.printf(Locale.ROOT, "suite: %s: %s; %.0f req/s, %s, warm-up %d s, measured %d s%n", id,
            arm.jvmFlags(), o.rate(), workload.describe(), RaftKvScenario.warmup(o).toSeconds(),
            RaftKvScenario.measure(o).toSeconds());
        try (RaftKvCluster cluster = RaftKvCluster.start(arm, id, o.agentJar(), workload, logDir, stop)) {
            System.err.printf(Locale.ROOT, "suite: %s: preloaded %s in %.1f s%n", id, workload.describe(),
                cluster.preload(workload));
            return measure(arm.name(), rep, o, workload, cluster, o.out().resolve(id + ".hlog"));
        } catch (Exception e) {
            System.err.println("suite: " + id + " failed: " + e + " (logs in " + logDir + ")");
            return RaftKvRep.failed(arm.name(), rep, e.toString());
        } finally {
            stop.release();
        }
    }

    private static RaftKvRep measure(String arm, int rep, SuiteOptions o, RaftKvWorkload workload,
                                     RaftKvCluster cluster, Path hlog) throws Exception {
        RaftGroup group = cluster.group();
        List<RaftKvCluster.Peer> peers = cluster.peers();
        Window w = new Window(peers);
        RaftKvLoad.Result load;
        try (RaftClient admin = adminClient(group)) {
            load = new RaftKvLoad(group, o.rate(), workload).run(RaftKvScenario.warmup(o),
                RaftKvScenario.measure(o), hlog, () -> w.start(admin, group, RaftKvScenario.measure(o)),
                () -> w.end(admin, group));
        }
        load.requests().writeCsv(o.out().resolve("logs").resolve(arm + "-rep" + rep).resolve("requests.csv"));
        long from = load.requests().startEpochMillis();
        long to = from + RaftKvScenario.measure(o).toMillis();
        List<String> outputs = new ArrayList<>();
        for (int i = 0; i < peers.size(); i++) {
            // whole outputs, read after the drain (late Blade lines), kept to the window by time (within): cut at each
            // peer's offset at the window's start, a hand-off 0.1 s into the window was matched with an election 22 s
            // later (raft-kv, 2026-11-28: its successor's election line, 19 ms after its start, was cut away)
            outputs.add(RaftKvLogs.since(peers.get(i).output(), 0));
        }
        RaftKvLeadership.Changes changes = RaftKvLeadership.parse(outputs,
            RaftKvLogs.groupShort(group.getGroupId()), from, ZoneId.systemDefault()).within(from, to);
        List<Integer> collections = new ArrayList<>();
        double longest = 0;
        double allocation = Double.NaN;
        for (int i = 0; i < peers.size(); i++) {
            String gc = w.gcLogs[i];
            collections.add(gc == null ? -1 : RaftKvLogs.collections(gc));
            longest = Math.max(longest, gc == null ? 0 : RaftKvLogs.longestPauseMs(gc));
            allocation = RaftKvScenario.maxKnown(allocation,
                RaftKvLogs.allocationMibPerSecond(RaftKvLogs.since(peers.get(i).gcLog(), 0)));
        }
        long terms = w.terms[0] < 0 || w.terms[1] < 0 ? -1 : w.terms[1] - w.terms[0];
        RaftKvRep r = new RaftKvRep(arm, rep, load, changes, terms, collections, longest, allocation, w.usage(),
            cluster.exited());
        RaftKvRequests.Stretch all = load.requests().all();
        System.err.printf(Locale.ROOT, "suite: %s-rep%d: p99 %.2f ms, p99.99 %.2f ms, max %.2f ms, failed %d,"
                + " timed out %d, hand-offs %d, elections %d, terms +%d, collections %s%n", arm, rep,
            load.latency().getValueAtPercentile(99) / 1000.0, load.latency().getValueAtPercentile(99.99) / 1000.0,
            load.latency().getMaxValue() / 1000.0, all.failed(), all.timedOut(), changes.handoffs().size(),
            r.elections(), terms, collections);
        return r;
    }

    /**
     * What is read at the window's start (on the load's window-start thread, which then measures the wake-ups until
     * the window's end) and at its end (on the load's thread), kept for after the run, which joins the former.
     */
    private static final class Window {
        private final List<RaftKvCluster.Peer> peers;
        private final long[] gcAt;
        private final String[] gcLogs;
        private final long[] terms = {-1, -1};
        private final ProcessUsage[] before;
        private MachineCpu machine;
        private ProcessUsage load;
        private long startNanos;
        private double seconds;
        private double peerSeconds;
        private WakeupJitter jitter;
        private boolean read;

        Window(List<RaftKvCluster.Peer> peers) {
            this.peers = peers;
            gcAt = new long[peers.size()];
            gcLogs = new String[peers.size()];
            before = new ProcessUsage[peers.size()];
        }

        /** At the window's start: where the GC logs are, the term and CPU times; then the wake-ups until its end. */
        void start(RaftClient admin, RaftGroup group, Duration measure) {
            try {
                for (int i = 0; i < peers.size(); i++) {
                    gcAt[i] = RaftKvLogs.offset(peers.get(i).gcLog());
                    before[i] = ProcessUsage.of(peers.get(i).process().pid());
                }
                machine = MachineCpu.now();
                load = ProcessUsage.of(ProcessHandle.current().pid());
                startNanos = System.nanoTime();
                terms[0] = term(admin, group);
            } catch (IOException e) {
                System.err.println("suite: cannot read the window's start: " + e);
            }
            jitter = WakeupJitter.measure(measure);
        }

        /** At the window's end: the GC logs written during it, the term and the CPU used. */
        void end(RaftClient admin, RaftGroup group) {
            try {
                seconds = (System.nanoTime() - startNanos) / 1e9;
                for (int i = 0; i < peers.size(); i++) {
                    gcLogs[i] = RaftKvLogs.since(peers.get(i).gcLog(), gcAt[i]);
                    peerSeconds += ProcessUsage.of(peers.get(i).process().pid()).since(before[i]).cpuSeconds();
                }
                machine = MachineCpu.now().since(machine);
                load = ProcessUsage.of(ProcessHandle.current().pid()).since(load);
                terms[1] = term(admin, group);
                read = true;
            } catch (IOException | RuntimeException e) {
                System.err.println("suite: cannot read the window's end: " + e);
            }
        }

        /** @return what the machine did during the window, null when a reading failed; after the run only */
        RaftKvRep.Usage usage() {
            return !read || jitter == null ? null : new RaftKvRep.Usage(machine.busyCores(seconds),
                machine.stealCores(seconds), peerSeconds / seconds, load.cpuSeconds() / seconds, jitter);
        }
    }

    /** @return the group's current term: the highest of the leader's term and every peer's last log entry's term */
    private static long term(RaftClient admin, RaftGroup group) {
        long term = -1;
        for (RaftPeer peer : group.getPeers()) {
            try {
                GroupInfoReply info = admin.getGroupManagementApi(peer.getId()).info(group.getGroupId());
                RoleInfoProto role = info.getRoleInfoProto();
                if (role.hasLeaderInfo()) {
                    term = Math.max(term, role.getLeaderInfo().getTerm());
                }
                term = Math.max(term, info.getLogInfoProto().getLastEntry().getTerm());
            } catch (IOException | RuntimeException e) {
                System.err.println("suite: no group info from " + peer.getId() + ": " + e);
            }
        }
        return term;
    }

    private static RaftClient adminClient(RaftGroup group) {
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(3, TimeUnit.SECONDS));
        return RaftClient.newBuilder().setRaftGroup(group).setProperties(properties)
            .setRetryPolicy(RetryPolicies.noRetry()).build();
    }
}
