package io.bladegc.benchmarks.raftkv;

import io.bladegc.benchmarks.demo.BladeEventLines;
import io.bladegc.ratis.RaftBlade;
import io.bladegc.ratis.RaftBladeOptions;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * One peer of the replicated counter ({@link CounterStateMachine}), started the way a Ratis user starts a server,
 * changed only by the two lines of docs/raft.md ("Raft services on Apache Ratis"): the state-machine registry from
 * {@link RaftBlade#registry} instead of {@code setStateMachine(stateMachine)}, and {@link RaftBlade#start} after
 * {@code server.start()}. The Blade options make every collection of a leader a hand-off
 * ({@link RaftBladeOptions.HandOff#ALWAYS}).
 *
 * <pre>
 * CounterServer --id n1 --peers n1=127.0.0.1:9001,n2=127.0.0.1:9002,n3=127.0.0.1:9003 --storage DIR
 * </pre>
 *
 * Configuration: gRPC on the peer's port from {@code --peers}; Raft storage in {@code DIR} (formatted; a fresh
 * directory); leader election timeout 150-300 ms; linearizable reads ({@code LINEARIZABLE}, no leader lease: every
 * read takes a ReadIndex round); log segments of 4 MB with at most two cached (the peers run with 128 MB heaps).
 * Prints {@code counter ready: <id> on <port>} once the server and Blade are started; on SIGTERM closes Blade, then
 * the server.
 */
public final class CounterServer {
    /** The counter's group id. */
    static final UUID GROUP_ID = UUID.nameUUIDFromBytes("blade-handoff-counter".getBytes());
    /** What Blade is started with: the defaults, but a leader hands off before every collection. */
    static final RaftBladeOptions BLADE = RaftBladeOptions.defaults().withHandOff(RaftBladeOptions.HandOff.ALWAYS);

    private CounterServer() {
    }

    /** @return the group of {@code peers}, {@code id=host:port} entries separated by commas */
    static RaftGroup group(String peers) {
        List<RaftPeer> list = new ArrayList<>();
        for (String entry : peers.split(",")) {
            String[] idAddress = entry.split("=", 2);
            list.add(RaftPeer.newBuilder().setId(idAddress[0]).setAddress(idAddress[1]).build());
        }
        return RaftGroup.valueOf(RaftGroupId.valueOf(GROUP_ID), list);
    }

    public static void main(String[] args) throws Exception {
        BladeEventLines.enable(); // the test counts hand-offs in the per-collection lines
        String id = null;
        String peers = null;
        String storage = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--id" -> id = args[i + 1];
                case "--peers" -> peers = args[i + 1];
                case "--storage" -> storage = args[i + 1];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (id == null || peers == null || storage == null) {
            throw new IllegalArgumentException("usage: CounterServer --id ID --peers id=host:port,... --storage DIR");
        }
        RaftGroup group = group(peers);
        RaftPeerId self = RaftPeerId.valueOf(id);
        String address = group.getPeer(self).getAddress();
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));

        RaftProperties properties = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(properties, List.of(new File(storage)));
        GrpcConfigKeys.Server.setPort(properties, port);
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, TimeDuration.valueOf(150, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Read.setOption(properties, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf("4MB"));
        RaftServerConfigKeys.Log.setSegmentCacheNumMax(properties, 2);

        CounterStateMachine stateMachine = new CounterStateMachine();
        RaftServer server = RaftServer.newBuilder().setServerId(self).setGroup(group).setProperties(properties)
            // docs/raft.md, line 1 (was: .setStateMachine(stateMachine))
            .setStateMachineRegistry(RaftBlade.registry(group, gid -> stateMachine, BLADE))
            .build();
        server.start();
        // docs/raft.md, line 2
        RaftBlade blade = RaftBlade.start(server, group, properties, BLADE);

        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                blade.close();
                server.close();
            } catch (Exception e) {
                System.err.println("counter: " + self + " did not close cleanly: " + e);
            } finally {
                closed.countDown();
            }
        }, "counter-shutdown"));
        System.out.println("counter ready: " + self + " on " + port);
        System.out.flush();
        closed.await();
    }
}
