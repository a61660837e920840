package io.bladegc.ratis;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.grant.GrantHolder;
import io.bladegc.api.grant.HolderSettings;
import io.bladegc.api.slot.Outcome;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.Status;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
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
 * grants it (at most {@code n - majority} peers at once, {@link QuorumPolicy}), through the node's
 * {@link GrantHolder}, and a leader hands its leadership off before it collects ({@link RaftHandOff}).
 *
 * <p><b>Arming.</b> Until the slot group has a leader and every peer of the group has joined its ledger, and the JVM's
 * next collection leaves room for a first request, the peer only observes: it plans no collection, and the JVM collects as it decides. One line says when it starts observing,
 * one when it is armed, with how many collections the JVM ran on its own meanwhile. Without the agent, the peer takes
 * part in the ledger and collects as the JVM decides; a warning says so.
 *
 * <p>Thread-safe.
 */
public final class RaftBlade implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RaftBlade.class.getName());
    /** The name of the grant-holder's thread. */
    static final String HOLDER_THREAD = "blade-raft-gc";
    /** How often an observing peer looks whether the slot group is complete. */
    private static final long ARMING_CHECK_MILLIS = 100;
    /**
     * The schedule lead before the first grant was timed: what first grants took in {@code RaftInvariantsIT} (three
     * peers whose JVMs allocate in step, as a Raft group's do, so that their first requests queue behind each other):
     * 103-656 ms from the upcall, half of them over 350 ms, on two loaded cores (2026-11-29). With 100 ms here every
     * first request was late, and in one CI run two peers' JVMs collected on their own together before the first grant.
     */
    static final Duration FIRST_LEAD = Duration.ofMillis(400);
    /** Kept before a grant's lease end beyond the expected pause (a Raft peer's gate, if any, drains within it). */
    private static final Duration LEASE_MARGIN = Duration.ofMillis(200);
    /**
     * The longest time between two heartbeats, whatever the member timeout: each says when the peer's JVM next
     * collects, and from a peer's collection to its next beat the ledger does not know. With a beat a second (a third
     * of the default timeout) and young collections about as often, the ledger took full collections offered while
     * another peer came due during them, and that peer's JVM collected on its own while it queued
     * (RaftInvariantsIT, 2026-11-30).
     */
    static final long MAX_HEARTBEAT_MILLIS = 250;
    /** The longest one look at the ledger for a grant lasts before the holder asks again. */
    private static final Duration MAX_WAIT = Duration.ofSeconds(1);

    private final String self;
    private final SlotClient slots;
    private final ScheduledExecutorService heartbeats;
    private final AtomicLong unavailable;
    private final AtomicLong invitations;
    private final BladeNode node;
    private final GrantHolder holder;
    private final SlotGroupPort port;
    private final Arming arming;

    private RaftBlade(String self, SlotClient slots, ScheduledExecutorService heartbeats, AtomicLong unavailable,
                      AtomicLong invitations, BladeNode node, GrantHolder holder, SlotGroupPort port, Arming arming) {
        this.self = self;
        this.slots = slots;
        this.heartbeats = heartbeats;
        this.unavailable = unavailable;
        this.invitations = invitations;
        this.node = node;
        this.holder = holder;
        this.port = port;
        this.arming = arming;
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
     * of the ledger (heartbeats), and, when the JVM has a Blade node, registers the peer's grant-holder with it once
     * the slot group is complete (see Arming above). Does not wait for the other peers.
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
        AtomicLong unavailable = new AtomicLong();
        ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "blade-raft-heartbeat");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(1, Math.min(MAX_HEARTBEAT_MILLIS, options.memberTimeout().toMillis() / 3));
        Optional<BladeNode> node = Blade.node();
        LongSupplier due = node.isPresent() ? node.get()::dueInMillis : () -> -1;
        LongSupplier fullDue = node.isPresent() ? node.get()::fullDueInMillis : () -> -1;
        AtomicBoolean joined = new AtomicBoolean();
        AtomicLong invitations = new AtomicLong();
        Consumer<String> invited = by -> {
            if (node.isPresent() && node.get().collectEarly()) {
                invitations.incrementAndGet();
                LOG.log(Level.DEBUG, () -> "Blade raft " + self + ": invited to collect now, before " + by
                    + "'s full collection");
            }
        };
        heartbeats.scheduleWithFixedDelay(() -> heartbeat(slots, self, joined, due, fullDue, invited, unavailable), 0,
            every, TimeUnit.MILLISECONDS);
        if (node.isEmpty()) {
            LOG.log(Level.WARNING, "Blade raft " + self + ": no Blade node in this JVM (attach the agent: "
                + "-javaagent:blade-agent.jar); this peer keeps its place in the slot ledger but collects as the JVM "
                + "decides");
            return new RaftBlade(self, slots, heartbeats, unavailable, invitations, null, null, null, null);
        }
        SlotGroupPort port = new SlotGroupPort(slots, self);
        GrantHolder holder = new GrantHolder(node.get(), port, new RaftHandOff(new LeadershipHandoff(server,
            slotGroup.getGroupId()), slots, options), settings(options), HOLDER_THREAD, "raft " + self + " ", LOG);
        holder.start();
        String policy = QuorumPolicy.of(appGroup.getPeers().size(), options.lease(), options.memberTimeout())
            .toString();
        Arming arming = new Arming(node.get(), holder, holder::overtaken, () -> slots.view().slots().members(), self,
            slotGroup, policy, LOG, System::nanoTime);
        arming.observe();
        heartbeats.scheduleWithFixedDelay(arming::check, ARMING_CHECK_MILLIS, ARMING_CHECK_MILLIS,
            TimeUnit.MILLISECONDS);
        return new RaftBlade(self, slots, heartbeats, unavailable, invitations, node.get(), holder, port, arming);
    }

    /**
     * A Raft peer's holder: 200 ms kept before the lease end (besides the node's own drain timeout, for a gate the
     * application may have), looks at the ledger for up to 1 s per ask, and without the ledger it leaves the
     * collection to the JVM: a collection without a grant may cost the group its majority, whoever starts it. A
     * collection whose grant cannot come in time is asked for anyway, at half eden, not left to the JVM: the peers
     * apply the same log, so their edens fill in step and such collections come together.
     */
    static HolderSettings settings(RaftBladeOptions options) {
        return new HolderSettings(LEASE_MARGIN, Duration.ofMillis(25), MAX_WAIT,
            options.callTimeout().multipliedBy(2).plus(MAX_WAIT), FIRST_LEAD, false, false);
    }

    /**
     * One beat: the first that reaches the ledger joins (a peer restarted before the ledger lost it numbers its GC
     * requests from 1 again, and only a join makes the ledger take ids it had seen end), the later ones heartbeat; an
     * answer that invites the peer to collect now (it would come due during another's near full collection) is given
     * to {@code invited} with the member whose full collection that is.
     */
    private static void heartbeat(SlotClient slots, String self, AtomicBoolean joined, LongSupplier due,
                                  LongSupplier fullDue, Consumer<String> invited, AtomicLong unavailable) {
        try {
            if (!joined.get()) {
                joined.set(slots.join(self).status() == Status.OK);
                return;
            }
            Outcome o = slots.heartbeat(self, due.getAsLong(), fullDue.getAsLong());
            if (o.status() == Status.UNKNOWN_NODE) {
                slots.join(self);
            } else if (o.invitedBy() != null) {
                invited.accept(o.invitedBy());
            }
        } catch (IOException | RuntimeException e) {
            unavailable.incrementAndGet(); // the next beat tries again; the ledger counts this peer down meanwhile
        }
    }

    /**
     * @return what Blade did on this peer: the grant-holder's counters ({@code Grants}, {@code Collections},
     *     {@code HandOffs}, {@code InPlace}, ...), {@code HeartbeatsUnavailable} and {@code Invitations} (young
     *     collections asked for early because a heartbeat's answer invited them); JDK types only
     */
    public Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        if (holder != null) {
            m.putAll(holder.stats());
        }
        m.put("HeartbeatsUnavailable", unavailable.get());
        m.put("Invitations", invitations.get());
        return m;
    }

    /** @return the slot ledger as the slot group's leader has it */
    public SlotGroupView view() throws IOException {
        return slots.view();
    }

    /** Unregisters the holder, leaves the ledger (best effort) and stops the heartbeats. */
    @Override
    public void close() throws IOException {
        heartbeats.shutdownNow();
        if (holder != null) {
            arming.stop();
            node.register(null);
            holder.close();
            port.close();
        }
        try {
            slots.leave(self);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "Blade raft " + self + ": leave not answered: " + e.getMessage());
        }
        slots.close();
    }
}
