package io.bladegc.ratis;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.Status;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.StateMachine;

/**
 * Blade for a Ratis application: GC slots among the peers of the application's Raft group, kept in a second Raft
 * group (the <em>slot group</em>) on the same {@link RaftServer}, with the same peers. The application's state
 * machine, log and snapshots stay untouched (docs/architecture.md says why this and not a decorated state machine).
 *
 * <p>Two calls:
 * <pre>{@code
 * RaftServer server = RaftServer.newBuilder().setServerId(id).setGroup(appGroup).setProperties(properties)
 *     .setStateMachineRegistry(RaftBlade.registry(appGroup, gid -> appStateMachine, RaftBladeOptions.defaults()))
 *     .build();
 * server.start();
 * RaftBlade blade = RaftBlade.start(server, appGroup, properties, RaftBladeOptions.defaults());
 * ...
 * blade.close(); server.close();
 * }</pre>
 * With the agent attached ({@code -javaagent:blade-agent.jar}), the peer then collects only when the slot ledger
 * grants it (at most {@code n - majority} peers at once, {@link QuorumPolicy}), and a leader hands its leadership off
 * before it collects ({@link RaftGcHandler}). Without the agent, the peer takes part in the ledger and collects as the
 * JVM decides; a warning says so.
 *
 * <p>Thread-safe.
 */
public final class RaftBlade implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RaftBlade.class.getName());

    private final String self;
    private final SlotClient slots;
    private final ScheduledExecutorService heartbeats;
    private final RaftBladeCounters counters;
    private final BladeNode node;
    private final RaftGcHandler handler;

    private RaftBlade(String self, SlotClient slots, ScheduledExecutorService heartbeats, RaftBladeCounters counters,
                      BladeNode node, RaftGcHandler handler) {
        this.self = self;
        this.slots = slots;
        this.heartbeats = heartbeats;
        this.counters = counters;
        this.node = node;
        this.handler = handler;
    }

    /**
     * @param appGroup the application's group
     * @return the slot group: the same peers, a group id derived from the application's
     */
    public static RaftGroup slotGroup(RaftGroup appGroup) {
        byte[] name = ("blade-slots/" + appGroup.getGroupId().getUuid()).getBytes(StandardCharsets.UTF_8);
        return RaftGroup.valueOf(RaftGroupId.valueOf(UUID.nameUUIDFromBytes(name)), appGroup.getPeers());
    }

    /**
     * The state-machine registry to build the server with: the slot group's state machine, and the application's
     * for every other group.
     *
     * @param appGroup    the application's group (its size sets the quorum policy)
     * @param application the application's registry
     * @param options     lease and member timeout, the same on every peer
     * @return the registry
     */
    public static StateMachine.Registry registry(RaftGroup appGroup, StateMachine.Registry application,
                                                 RaftBladeOptions options) {
        RaftGroupId slotGroup = slotGroup(appGroup).getGroupId();
        SlotPolicy policy = QuorumPolicy.of(appGroup.getPeers().size(), options.lease(), options.memberTimeout());
        return gid -> gid.equals(slotGroup) ? new SlotStateMachine(policy) : application.apply(gid);
    }

    /**
     * Adds the slot group to a started server (unless it is there already, from storage), keeps this peer a member
     * of the ledger (heartbeats), and registers Blade's Raft handler with the JVM's Blade node when there is one.
     *
     * @throws IOException when the server refuses the slot group
     */
    public static RaftBlade start(RaftServer server, RaftGroup appGroup, RaftProperties properties,
                                  RaftBladeOptions options) throws IOException {
        RaftGroup slotGroup = slotGroup(appGroup);
        boolean present = false;
        for (RaftGroupId g : server.getGroupIds()) {
            present |= g.equals(slotGroup.getGroupId());
        }
        if (!present) {
            server.groupManagement(GroupManagementRequest.newAdd(ClientId.randomId(), server.getId(), 1, slotGroup));
        }
        String self = server.getId().toString();
        SlotClient slots = SlotClient.connect(slotGroup, properties, options.callTimeout());
        RaftBladeCounters counters = new RaftBladeCounters();
        ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "blade-raft-heartbeat");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(1, options.memberTimeout().toMillis() / 3);
        heartbeats.scheduleWithFixedDelay(() -> heartbeat(slots, self, counters), 0, every, TimeUnit.MILLISECONDS);
        Optional<BladeNode> node = Blade.node();
        RaftGcHandler handler = null;
        if (node.isPresent()) {
            handler = new RaftGcHandler(node.get(), self, slots, new LeadershipHandoff(server), options, counters, LOG);
            node.get().register(handler);
            LOG.log(Level.INFO, "Blade raft " + self + ": collecting under grants of slot group "
                + slotGroup.getGroupId() + " (" + QuorumPolicy.of(appGroup.getPeers().size(), options.lease(),
                options.memberTimeout()) + ")");
        } else {
            LOG.log(Level.WARNING, "Blade raft " + self + ": no Blade node in this JVM (attach the agent: "
                + "-javaagent:blade-agent.jar); this peer keeps its place in the slot ledger but collects as the JVM "
                + "decides");
        }
        return new RaftBlade(self, slots, heartbeats, counters, node.orElse(null), handler);
    }

    private static void heartbeat(SlotClient slots, String self, RaftBladeCounters counters) {
        try {
            Outcome o = slots.heartbeat(self);
            if (o.status() == Status.UNKNOWN_NODE) {
                slots.join(self);
            }
        } catch (IOException | RuntimeException e) {
            counters.unavailable.increment(); // the next beat tries again; the ledger counts this peer down meanwhile
        }
    }

    /** @return what Blade did on this peer: transfers, collections, cancellations, failed calls */
    public Map<String, Long> stats() {
        return counters.snapshot();
    }

    /** @return the slot ledger as the slot group's leader has it */
    public SlotGroupView view() throws IOException {
        return slots.view();
    }

    /** Unregisters the handler, leaves the ledger (best effort) and stops the heartbeats. */
    @Override
    public void close() throws IOException {
        if (handler != null) {
            node.register(null);
            handler.close();
        }
        heartbeats.shutdownNow();
        try {
            slots.leave(self);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "Blade raft " + self + ": leave not answered: " + e.getMessage());
        }
        slots.close();
    }
}
