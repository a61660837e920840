package io.bladegc.benchmarks.raftkv;

import io.bladegc.benchmarks.demo.BladeEventLines;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import io.bladegc.commandline.UsageProblems;
import io.bladegc.ratis.RaftBlade;
import io.bladegc.ratis.RaftBladeOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One peer of the replicated key-value store: a Ratis server over gRPC running {@link KvStateMachine}, with Blade
 * for Raft ({@link RaftBlade}) beside it.
 *
 * <pre>
 * KvServer --id n1 --peers n1=127.0.0.1:9001,n2=127.0.0.1:9002,n3=127.0.0.1:9003 --storage DIR
 *          [--group UUID] [--snapshot-every N] [--garbage MIB_PER_S]
 * </pre>
 *
 * Configuration: gRPC on the peer's own port from {@code --peers}; Raft storage in {@code DIR} (recovered when
 * present, formatted when empty); the group {@link KvGroup#DEFAULT_GROUP_ID} unless {@code --group}; linearizable
 * reads with the leader lease (below); a leader election timeout drawn from 150..300 ms (set explicitly, as Ratis's
 * defaults differ between versions); no automatic snapshots unless {@code --snapshot-every N} (a snapshot every N
 * applied entries, keeping the latest two); with {@code --garbage}, a service's own allocation beside the store's
 * ({@link ServiceGarbage}: that many MiB/s, each piece kept {@value ServiceGarbage#LIFETIME_SECONDS} s).
 *
 * <p>The leader lease ({@code raft.server.read.leader.lease.enabled}) is how Ratis's users deploy linearizable reads:
 * a leader that heard from a majority within the lease (0.9 of the shortest election timeout, Ratis's default ratio)
 * answers a read at its commit index at once, and falls back to a round of heartbeats (ReadIndex) when the lease ran
 * out. Without it every read waits for that round, which on two shared cores put the reads' p99 at about 35 ms
 * against 7 ms with it. It stays safe with Blade: Ratis disables the lease while it transfers leadership and when the
 * leader steps down, the lease counts from the sending of the last heartbeat a majority acknowledged (so a leader
 * paused by a collection longer than the lease takes the round afterwards), and Blade only ever holds elections back,
 * never starts one early.
 *
 * <p>{@link #main} prints {@code kv ready: <id> on <port>} once the server and Blade are started, and on SIGTERM
 * closes Blade, then the server. Bad arguments: a usage error ({@link ToolCommandLine}), exit status 2.
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread, more than once.
 */
public final class KvServer implements AutoCloseable {
    /** Lower bound of the randomized leader election timeout. */
    public static final TimeDuration ELECTION_TIMEOUT_MIN = TimeDuration.valueOf(150, TimeUnit.MILLISECONDS);
    /** Upper bound of the randomized leader election timeout. */
    public static final TimeDuration ELECTION_TIMEOUT_MAX = TimeDuration.valueOf(300, TimeUnit.MILLISECONDS);

    /**
     * What a peer is started with.
     *
     * @param id            this peer's id, one of {@code group}'s
     * @param group         the store's group
     * @param storage       the Raft storage directory
     * @param snapshotEvery applied entries between automatic snapshots, 0 for none
     * @param garbageMibPerSecond what {@link ServiceGarbage} allocates each second, 0 for none
     * @param logSegmentMib the size of a Raft log segment in MiB, 0 for Ratis' own (32 MiB): Ratis keeps the entries of
     *                      the open segment and of up to six closed ones in memory, part of the live set
     * @param retryCacheSeconds how long Ratis keeps each write's reply for a client's retry, 0 for Ratis' own (60 s): a
     *                      put's reply carries the value it replaced, so the retry cache holds that much a second of
     *                      writes
     */
    public record Options(RaftPeerId id, RaftGroup group, Path storage, long snapshotEvery, int garbageMibPerSecond,
                          int logSegmentMib, int retryCacheSeconds) {
        /**
         * Parses the command line.
         *
         * @throws UsageException naming every missing or malformed argument
         */
        public static Options parse(String... args) {
            return ToolCommandLine.options(new Flags(), args);
        }

        /** @return the Ratis configuration of this peer */
        public RaftProperties properties() {
            RaftProperties properties = new RaftProperties();
            RaftServerConfigKeys.setStorageDir(properties, List.of(storage.toFile()));
            GrpcConfigKeys.Server.setPort(properties, KvGroup.portOf(group, id));
            RaftServerConfigKeys.Rpc.setTimeoutMin(properties, ELECTION_TIMEOUT_MIN);
            RaftServerConfigKeys.Rpc.setTimeoutMax(properties, ELECTION_TIMEOUT_MAX);
            RaftServerConfigKeys.Read.setOption(properties, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
            RaftServerConfigKeys.Read.setLeaderLeaseEnabled(properties, true);
            RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, snapshotEvery > 0);
            if (snapshotEvery > 0) {
                RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, snapshotEvery);
                RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
            }
            if (logSegmentMib > 0) {
                RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf(logSegmentMib + "MB"));
            }
            if (retryCacheSeconds > 0) {
                RaftServerConfigKeys.RetryCache.setExpiryTime(properties,
                    TimeDuration.valueOf(retryCacheSeconds, TimeUnit.SECONDS));
            }
            return properties;
        }
    }

    /** The options as picocli reads them. */
    @Command(name = "KvServer", description = "One peer of the replicated key-value store, with Blade for Raft"
        + " beside it. Prints 'kv ready: <id> on <port>' once started; stops on SIGTERM.")
    static final class Flags implements ToolCommand<Options> {
        @Option(names = "--id", paramLabel = "ID", required = true, description = "this peer's id, one of --peers")
        String id;

        @Option(names = "--peers", paramLabel = "n1=host:port,...", required = true,
            description = "every peer of the group; gRPC on this peer's own port")
        String peers;

        @Option(names = "--storage", paramLabel = "DIR", required = true,
            description = "the Raft storage (recovered when present, formatted when empty)")
        Path storage;

        @Option(names = "--group", paramLabel = "UUID", description = "the group's id (default the store's own)")
        String group;

        @Option(names = "--snapshot-every", paramLabel = "N", description = "a snapshot every N applied entries,"
            + " keeping the latest two (default none)")
        Long snapshotEvery;

        @Option(names = "--garbage", paramLabel = "MIB_PER_S", description = "allocate this many MiB/s besides the"
            + " store, each piece kept " + ServiceGarbage.LIFETIME_SECONDS + " s, as a service's caches and sessions"
            + " (default none)")
        Integer garbage;

        @Option(names = "--log-segment", paramLabel = "MIB", description = "Raft log segments of this many MiB;"
            + " Ratis keeps the open one and up to six closed ones in memory (default Ratis' own, 32 MiB)")
        Integer logSegment;

        @Option(names = "--retry-cache-seconds", paramLabel = "N", description = "keep each write's reply (a put's:"
            + " the value it replaced) this long for a client's retry (default Ratis' own, 60 s)")
        Integer retryCacheSeconds;

        @Override
        public Options options() {
            UsageProblems problems = new UsageProblems();
            problems.check(snapshotEvery == null || snapshotEvery > 0, "--snapshot-every", snapshotEvery,
                "a positive number");
            problems.check(garbage == null || garbage > 0, "--garbage", garbage, "a positive number of MiB/s");
            problems.check(logSegment == null || logSegment > 0, "--log-segment", logSegment,
                "a positive number of MiB");
            problems.check(retryCacheSeconds == null || retryCacheSeconds > 0, "--retry-cache-seconds",
                retryCacheSeconds, "a positive number of seconds");
            problems.throwIfAny();
            try {
                RaftGroup raftGroup = KvGroup.parse(peers, group);
                RaftPeerId peerId = RaftPeerId.valueOf(id);
                KvGroup.portOf(raftGroup, peerId);
                return new Options(peerId, raftGroup, storage, snapshotEvery == null ? 0 : snapshotEvery,
                    garbage == null ? 0 : garbage, logSegment == null ? 0 : logSegment,
                    retryCacheSeconds == null ? 0 : retryCacheSeconds);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        }
    }

    private final RaftServer server;
    private final RaftBlade blade;
    private final ServiceGarbage garbage;

    private KvServer(RaftServer server, RaftBlade blade, ServiceGarbage garbage) {
        this.server = server;
        this.blade = blade;
        this.garbage = garbage;
    }

    /**
     * Builds and starts the Ratis server, then joins Blade's slot group (Blade plans collections once the slot group
     * has a leader and every peer).
     *
     * @param options what to start
     * @return the running peer
     * @throws IOException when the storage cannot be used or the server cannot start
     */
    public static KvServer start(Options options) throws IOException {
        RaftProperties properties = options.properties();
        RaftBladeOptions bladeOptions = RaftBladeOptions.defaults();
        KvStateMachine stateMachine = new KvStateMachine();
        RaftServer server = RaftServer.newBuilder()
            .setServerId(options.id())
            .setGroup(options.group())
            .setProperties(properties)
            .setOption(RaftStorage.StartupOption.RECOVER)
            .setStateMachineRegistry(RaftBlade.registry(options.group(), gid -> stateMachine, bladeOptions))
            .build();
        try {
            server.start();
            RaftBlade blade = RaftBlade.start(server, options.group(), properties, bladeOptions);
            return new KvServer(server, blade, ServiceGarbage.start(options.garbageMibPerSecond()));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Stops the service's garbage, closes Blade, then the server. */
    @Override
    public void close() throws IOException {
        if (garbage != null) {
            garbage.close();
        }
        try {
            blade.close();
        } finally {
            server.close();
        }
    }

    /**
     * Runs a peer until SIGTERM.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) throws Exception {
        BladeEventLines.enable();
        Options options = ToolCommandLine.parseOrExit(new Flags(), args);
        KvServer kv = start(options);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                kv.close();
            } catch (IOException e) {
                System.err.println("kv-server: " + options.id() + " did not close cleanly: " + e);
            } finally {
                closed.countDown();
            }
        }, "kv-server-shutdown"));
        System.out.println("kv ready: " + options.id() + " on " + KvGroup.portOf(options.group(), options.id()));
        System.out.flush();
        closed.await();
    }
}
