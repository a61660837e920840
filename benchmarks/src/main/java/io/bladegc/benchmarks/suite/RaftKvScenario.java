package io.bladegc.benchmarks.suite;

import io.bladegc.benchmarks.cluster.ChildProcess;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.raftkv.KvClient;
import io.bladegc.benchmarks.raftkv.KvGroup;
import io.bladegc.benchmarks.raftkv.KvServer;
import io.bladegc.benchmarks.report.LatencyPlot;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
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
 * The {@code raft-kv} scenario, the BLADE paper's section 5.2 scaled to two cores: a three-peer replicated key-value
 * store on Apache Ratis ({@link KvServer}, one child JVM per peer), preloaded with {@link #keys} keys of 100-byte
 * values, under open-loop load ({@link RaftKvLoad}: 3 gets to 1 put, uniform random keys, {@value #CLIENTS} async
 * Ratis clients) at {@code --rate}, on G1, on Parallel with Blade for Raft (the agent in its default mode: the
 * application's Raft handler drives collections, a leader hands its leadership off first) and on Epsilon (no
 * collections: the floor; its heap sized from the allocation the other arms' GC logs show). One repetition per arm, a
 * fresh cluster each. Writes {@code table.md} ({@link RaftKvTable}), {@code latency.png}, {@code <arm>.hlog} and
 * {@code logs/<arm>/<peer>/} (output, GC log, Raft storage). Stateless.
 */
public final class RaftKvScenario {
    /** The scenario's name on the command line. */
    public static final String NAME = "raft-kv";
    /** Async Ratis clients sharing the load. */
    static final int CLIENTS = 4;
    /** The heap of the G1 and Parallel arms. */
    static final List<String> HEAP = List.of("-Xms1g", "-Xmx1g");
    /** Parallel's young generation: a young collection every few seconds at the default rate. */
    static final String YOUNG = "-Xmn256m";
    private static final String[] PEER_IDS = {"n1", "n2", "n3"};
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration DRAIN = Duration.ofSeconds(10);
    /** Epsilon's JVM lives through start-up and preload (allowed this much), warm-up, window and drain. */
    private static final Duration EPSILON_SETUP = Duration.ofSeconds(60);
    private static final double EPSILON_MARGIN = 1.5;
    /** Epsilon heap per peer when no other arm measured an allocation rate, and the most it is given. */
    static final long EPSILON_DEFAULT_MIB = 4096;
    static final long EPSILON_MAX_MIB = 6144;

    private RaftKvScenario() {
    }

    /** @return keys preloaded: 50,000 quick, 500,000 full */
    static int keys(SuiteOptions o) {
        return o.quick() ? 50_000 : 500_000;
    }

    /** @return warm-up: 5 s quick, 30 s full */
    static Duration warmup(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 5 : 30);
    }

    /** @return the measured window: 20 s quick, 120 s full */
    static Duration measure(SuiteOptions o) {
        return Duration.ofSeconds(o.quick() ? 20 : 120);
    }

    /**
     * @param allocationMibPerSecond the most a peer allocated in the other arms, NaN when unknown
     * @param lifetime               how long an Epsilon peer runs
     * @return Epsilon's heap per peer, MiB: allocation x lifetime x {@value #EPSILON_MARGIN}, in steps of 256 MiB,
     *     at least 1 GiB and at most {@link #EPSILON_MAX_MIB}; {@link #EPSILON_DEFAULT_MIB} when unknown
     */
    static long epsilonHeapMib(double allocationMibPerSecond, Duration lifetime) {
        if (Double.isNaN(allocationMibPerSecond)) {
            return EPSILON_DEFAULT_MIB;
        }
        double need = allocationMibPerSecond * lifetime.toMillis() / 1000.0 * EPSILON_MARGIN;
        long rounded = (long) Math.ceil(need / 256) * 256;
        return Math.min(EPSILON_MAX_MIB, Math.max(1024, rounded));
    }

    /**
     * Runs the three arms and writes the results.
     *
     * @param o    the command line
     * @param stop holds each running cluster, for a shutdown during the run
     * @return whether every arm completed
     */
    static boolean run(SuiteOptions o, StopOnExit stop) throws Exception {
        String header = SuiteReport.header(NAME, o, System.getProperty("java.version")
            + " (runs the load and every peer)") + String.format(Locale.ROOT, "- load: %.0f requests/s, 3 gets : 1"
            + " put, %,d keys, %d s warm-up, %d s measured, 1 repetition%n", o.rate(), keys(o),
            warmup(o).toSeconds(), measure(o).toSeconds());
        Path java = ClusterSpec.currentJava();
        List<String> parallel = new ArrayList<>(BackendFlags.of(BackendFlags.PARALLEL, HEAP));
        parallel.add(YOUNG);
        List<Arm> arms = new ArrayList<>(List.of(
            new Arm("g1", java, BackendFlags.of(BackendFlags.G1, HEAP), BladeMode.NONE, "G1, no agent"),
            new Arm(RaftKvTable.BLADE, java, parallel, BladeMode.GCI,
                "Parallel (fixed eden), the agent in its default mode (Blade for Raft drives collections)")));
        List<RaftKvTable.ArmOutcome> outcomes = new ArrayList<>();
        double allocation = Double.NaN;
        for (Arm arm : arms) {
            RaftKvTable.ArmOutcome outcome = runArm(arm, o, stop);
            outcomes.add(outcome);
            allocation = maxKnown(allocation, outcome.allocation());
        }
        Duration lifetime = EPSILON_SETUP.plus(warmup(o)).plus(measure(o)).plus(DRAIN);
        long epsilonMib = epsilonHeapMib(allocation, lifetime);
        List<String> epsilonFlags = new ArrayList<>(List.of("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC",
            "-Xms" + epsilonMib + "m", "-Xmx" + epsilonMib + "m", "-XX:+ExitOnOutOfMemoryError"));
        epsilonFlags.addAll(BackendFlags.COMMON.stream().filter(f -> !f.equals("-XX:+AlwaysPreTouch")).toList());
        Arm epsilon = new Arm("epsilon", java, epsilonFlags, BladeMode.NONE, "Epsilon (no collections), no agent,"
            + " heap not pre-touched, a peer that fills it exits (the arm then reports it)");
        arms.add(epsilon);
        outcomes.add(runArm(epsilon, o, stop));

        Map<String, Histogram> lines = new LinkedHashMap<>();
        outcomes.stream().filter(a -> a.load() != null).forEach(a -> lines.put(a.name(), a.load().latency()));
        LatencyPlot.write(o.out().resolve("latency.png"),
            String.format(Locale.ROOT, "%s: latency at the client, %.0f req/s", NAME, o.rate()), lines);
        StringBuilder notes = new StringBuilder();
        outcomes.stream().filter(a -> a.failure() != null)
            .forEach(a -> notes.append("- `").append(a.name()).append("` failed: ").append(a.failure()).append('\n'));
        SuiteReport.write(o, header + '\n' + RaftKvTable.markdown(outcomes) + '\n' + RaftKvTable.goals(outcomes)
            + '\n' + SuiteReport.armLines(arms) + notes + footer(o, allocation, lifetime, epsilonMib));
        return outcomes.stream().allMatch(a -> a.failure() == null);
    }

    /** @return the larger of two values, either of which may be NaN (unknown); NaN only when both are */
    static double maxKnown(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }

    /** One peer: its id, process, output (stdout and stderr) and GC log. */
    private record Peer(String id, ChildProcess process, Path output, Path gcLog) {
    }

    /** A started cluster, stopped peer by peer by pid. */
    private record Peers(List<Peer> peers) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            for (Peer p : peers) {
                p.process().close();
            }
        }
    }

    private static RaftKvTable.ArmOutcome runArm(Arm arm, SuiteOptions o, StopOnExit stop) {
        Path logDir = o.out().resolve("logs").resolve(arm.name());
        System.err.printf(Locale.ROOT, "suite: %s: %s; %.0f req/s, %,d keys, warm-up %d s, measured %d s%n",
            arm.name(), arm.jvmFlags(), o.rate(), keys(o), warmup(o).toSeconds(), measure(o).toSeconds());
        List<Peer> started = new ArrayList<>();
        try (Peers peers = stop.hold(new Peers(started))) {
            String spec = peerSpec();
            RaftGroup group = KvGroup.parse(spec, null);
            for (RaftPeer peer : group.getPeers()) {
                String id = peer.getId().toString();
                Path dir = logDir.resolve(id);
                Files.createDirectories(dir.resolve("storage"));
                List<String> command = new ArrayList<>(List.of(arm.java().toString()));
                command.addAll(arm.serverFlags(o.agentJar(), dir));
                command.addAll(List.of("-cp", System.getProperty("java.class.path"), KvServer.class.getName(),
                    "--id", id, "--peers", spec, "--storage", dir.resolve("storage").toString()));
                Path output = dir.resolve("server.log");
                ChildProcess child = ChildProcess.start(arm.name() + "-" + id, command, output, output);
                started.add(new Peer(id, child, output, dir.resolve("gc-" + child.pid() + ".log")));
            }
            for (Peer p : started) {
                p.process().awaitReady(() -> Files.readString(p.output()).contains("kv ready:"), READY_TIMEOUT,
                    p.id() + "'s \"kv ready\"");
            }
            return measure(arm, o, group, peers, logDir);
        } catch (Exception e) {
            System.err.println("suite: " + arm.name() + " failed: " + e + " (logs in " + logDir + ")");
            return new RaftKvTable.ArmOutcome(arm.name(), null, -1, 0, 0, List.of(), 0, Double.NaN, e.toString());
        } finally {
            stop.release();
        }
    }

    private static RaftKvTable.ArmOutcome measure(Arm arm, SuiteOptions o, RaftGroup group, Peers peers,
                                                  Path logDir) throws Exception {
        long t = System.nanoTime();
        try (KvClient kv = KvClient.connect(group, Duration.ofSeconds(60), KvClient.DEFAULT_ATTEMPTS)) {
            int size = kv.preload(keys(o), RaftKvLoad.VALUE_BYTES);
            if (size != keys(o)) {
                throw new IllegalStateException("preloaded " + keys(o) + " keys, the store holds " + size);
            }
        }
        System.err.printf(Locale.ROOT, "suite: %s: preloaded %,d keys in %.1f s%n", arm.name(), keys(o),
            (System.nanoTime() - t) / 1e9);
        int n = peers.peers().size();
        long[] outputAt = new long[n];
        long[] gcAt = new long[n];
        long[] terms = {-1, -1};
        String[] outputs = new String[n];
        String[] gcLogs = new String[n];
        try (RaftClient admin = adminClient(group)) {
            RaftKvLoad.Result load = new RaftKvLoad(group, o.rate(), keys(o)).run(CLIENTS, warmup(o), measure(o),
                DRAIN, o.out().resolve(arm.name() + ".hlog"), () -> {
                    try {
                        for (int i = 0; i < n; i++) {
                            outputAt[i] = RaftKvLogs.offset(peers.peers().get(i).output());
                            gcAt[i] = RaftKvLogs.offset(peers.peers().get(i).gcLog());
                        }
                        terms[0] = term(admin, group);
                    } catch (IOException e) {
                        System.err.println("suite: " + arm.name() + ": cannot read the window's start: " + e);
                    }
                }, () -> {
                    try {
                        for (int i = 0; i < n; i++) {
                            outputs[i] = RaftKvLogs.since(peers.peers().get(i).output(), outputAt[i]);
                            gcLogs[i] = RaftKvLogs.since(peers.peers().get(i).gcLog(), gcAt[i]);
                        }
                        terms[1] = term(admin, group);
                    } catch (IOException e) {
                        System.err.println("suite: " + arm.name() + ": cannot read the window's end: " + e);
                    }
                });
            String groupShort = RaftKvLogs.groupShort(group.getGroupId());
            long transfers = 0;
            long failedHandoffs = 0;
            List<Integer> collections = new ArrayList<>();
            double longest = 0;
            double allocation = Double.NaN;
            for (int i = 0; i < n; i++) {
                transfers += outputs[i] == null ? 0 : RaftKvLogs.handoffs(outputs[i], groupShort);
                failedHandoffs += outputs[i] == null ? 0 : RaftKvLogs.failedHandoffs(outputs[i], group.getGroupId());
                collections.add(gcLogs[i] == null ? -1 : RaftKvLogs.collections(gcLogs[i]));
                longest = Math.max(longest, gcLogs[i] == null ? 0 : RaftKvLogs.longestPauseMs(gcLogs[i]));
                allocation = maxKnown(allocation,
                    RaftKvLogs.allocationMibPerSecond(RaftKvLogs.since(peers.peers().get(i).gcLog(), 0)));
            }
            String failure = null;
            for (Peer p : peers.peers()) {
                if (!p.process().isAlive()) {
                    failure = (failure == null ? "" : failure + "; ") + "peer " + p.id() + " exited during the run"
                        + " (see " + p.output() + ")";
                }
            }
            long advanced = terms[0] < 0 || terms[1] < 0 ? -1 : terms[1] - terms[0];
            System.err.printf(Locale.ROOT, "suite: %s: p99 %.2f ms, p99.99 %.2f ms, max %.2f ms, errors %d,"
                    + " timeouts %d, terms +%d, transfers %d, collections %s%n", arm.name(),
                load.latency().getValueAtPercentile(99) / 1000.0, load.latency().getValueAtPercentile(99.99) / 1000.0,
                load.latency().getMaxValue() / 1000.0, load.errors(), load.timeouts(), advanced, transfers,
                collections);
            return new RaftKvTable.ArmOutcome(arm.name(), load, advanced, transfers, failedHandoffs, collections,
                longest,
                allocation, failure);
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

    /** @return {@code n1=127.0.0.1:<port>,...} on free loopback ports */
    private static String peerSpec() throws IOException {
        List<String> entries = new ArrayList<>();
        for (String id : PEER_IDS) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                entries.add(id + "=127.0.0.1:" + s.getLocalPort());
            }
        }
        return String.join(",", entries);
    }

    private static String footer(SuiteOptions o, double allocation, Duration lifetime, long epsilonMib) {
        return String.format(Locale.ROOT, "%nThree `KvServer` peers (Ratis, gRPC on loopback, linearizable"
            + " reads, election timeout 150-300 ms), a fresh cluster per arm, every peer in its own JVM with one GC"
            + " thread of each kind and a GC log; the load generator runs in the suite's JVM. Preload: one"
            + " `PRELOAD` command of %,d keys x %d-byte values (the command always fills `key-0 ..`; it has no"
            + " offset to split it into chunks). Load: open loop, constant rate %.0f/s, request i due at"
            + " start + i/rate, round robin over %d async Ratis clients; 3 in 4 gets (`sendReadOnly`), 1 in 4 puts"
            + " (`send`), keys uniformly random over the preloaded ones (seeded). Latency: from the intended send time"
            + " to the answer (no coordinated omission), HdrHistogram 3 digits, `<arm>.hlog` per second. Achieved"
            + " rate: answers over the window, which is stretched when the load generator fell behind (its worst send"
            + " lag is a row). A request refused by a leader stepping down is sent again 50 ms later as a new call"
            + " and keeps its first intended time. Timeouts: no answer within the client's retry policy (3 s per"
            + " attempt, 10 retries) or"
            + " %d s after the window. Elections: the group's term at the window's end minus at its start (each"
            + " peer's `GroupManagementApi.info`: the leader's `LeaderInfoProto.term`, the highest last-log-entry"
            + " term), minus the leadership transfers, i.e. Blade's `handed <group> to` lines in the peers' output"
            + " during the window (a hand-off that did not complete, Blade's `not handed off`, may still have advanced"
            + " the term: it then counts as an election). Collections and the longest pause: `[gc]` pause lines of"
            + " each peer's GC log written during the window. Another server: an answer whose"
            + " `RaftClientReply.getServerId()` differs from the same client's previous answer (in completion order):"
            + " requests that followed a leader change."
            + " Epsilon's heap: %,d MiB per peer = the busiest peer's allocation in the other arms (%s MiB/s: the"
            + " heap before each pause less after the previous one, over the uptime, from the GC logs) x %d s"
            + " lifetime x %.1f, in steps of 256 MiB, within 1,024..%,d MiB (%,d MiB when unknown); not pre-touched,"
            + " so a peer holds only what it allocated. Raw: `<arm>.hlog`, `logs/<arm>/<peer>/`.%n",
            keys(o),
            RaftKvLoad.VALUE_BYTES, o.rate(), CLIENTS, DRAIN.toSeconds(), epsilonMib,
            Double.isNaN(allocation) ? "unknown" : String.format(Locale.ROOT, "%.1f", allocation),
            lifetime.toSeconds(), EPSILON_MARGIN, EPSILON_MAX_MIB, EPSILON_DEFAULT_MIB);
    }
}
