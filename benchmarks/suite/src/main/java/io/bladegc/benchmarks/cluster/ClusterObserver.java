package io.bladegc.benchmarks.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.api.slot.SlotLedger;
import io.bladegc.testkit.CoordinatorProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Watches a Blade cluster from outside, every 100 ms on a daemon thread of its own: the coordinator's
 * {@code /v1/cluster} (its {@code collecting} list and its recent slot events) and, when the cluster has HAProxy in
 * front, which of its servers are out of rotation. From that it reconstructs the grants (who held a slot when, in the
 * coordinator's clock) and checks that a server leaves rotation only around a grant of its own node. Thread-safe: the getters may be called while it runs,
 * but read a settled picture only after {@link #stop()}.
 */
public final class ClusterObserver {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long PERIOD_MS = 100;

    /**
     * A grant from the coordinator's events, in its clock (ms).
     *
     * @param end {@link Long#MAX_VALUE} while still open
     */
    public record Grant(String node, long epoch, long start, long end) {
    }

    private final HttpClient http;
    private final CoordinatorProcess coordinator;
    private final Haproxy haproxy; // null: no load balancer to watch (generic mode)
    private final List<String> nodes;
    private final Thread thread;
    private volatile boolean stopped;
    private final Set<String> events = new LinkedHashSet<>(); // each event's JSON, in order of first sight
    private final List<long[]> offsets = new ArrayList<>(); // {round trip, coordinator clock minus local clock}
    private final List<Object[]> outs = new ArrayList<>(); // {node, local time} a server was seen out of rotation
    private int polls;
    private int pollErrors;
    private int maxCollecting;
    /** What each poll read of the coordinator's slot demand. */
    private final List<DemandPoll> demand = new ArrayList<>();

    /**
     * One poll's reading: the coordinator's time, its slot demand, whether it judged the schedule infeasible, and
     * whether it had stepped down (every collection left to the JVMs).
     */
    private record DemandPoll(long at, double slots, boolean infeasible, boolean observing) {
    }

    private ClusterObserver(HttpClient http, CoordinatorProcess coordinator, Haproxy haproxy, List<String> nodes) {
        this.http = http;
        this.coordinator = coordinator;
        this.haproxy = haproxy;
        this.nodes = List.copyOf(nodes);
        this.thread = new Thread(this::run, "cluster-observer");
        this.thread.setDaemon(true);
    }

    /** @return an observer of {@code cluster}, already polling; {@code cluster} must run Blade (a coordinator) */
    public static ClusterObserver start(HttpClient http, Cluster cluster) {
        ClusterObserver o = new ClusterObserver(http, cluster.coordinator().orElseThrow(
            () -> new IllegalArgumentException("the cluster has no coordinator")), cluster.haproxy(), cluster.nodes());
        o.thread.start();
        return o;
    }

    /**
     * @param nodes the cluster's node ids
     * @return an observer of a coordinator in generic mode (no load balancer to watch), already polling
     */
    public static ClusterObserver start(HttpClient http, CoordinatorProcess coordinator, List<String> nodes) {
        ClusterObserver o = new ClusterObserver(http, coordinator, null, nodes);
        o.thread.start();
        return o;
    }

    /** Stops polling and waits up to 5 s for the last poll to end. */
    public void stop() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(5_000);
    }

    private void run() {
        while (!stopped) {
            long next = System.currentTimeMillis() + PERIOD_MS;
            try {
                pollOnce();
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (stopped) {
                    return; // stop() interrupted this poll: a channel read then ends in ClosedByInterruptException
                }
                synchronized (this) {
                    pollErrors++;
                }
                System.err.println("cluster poll failed: " + e);
            }
            long sleep = next - System.currentTimeMillis();
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void pollOnce() throws IOException, InterruptedException {
        long before = System.currentTimeMillis();
        JsonNode view = coordinator.cluster(http);
        long after = System.currentTimeMillis();
        List<Integer> out = haproxy == null ? List.of() : haproxy.serversOutOfRotation();
        long t = System.currentTimeMillis();
        synchronized (this) {
            offsets.add(new long[] {after - before, view.get("now").asLong() - (before + after) / 2});
            maxCollecting = Math.max(maxCollecting, view.get("collecting").size());
            demand.add(new DemandPoll(view.get("now").asLong(), view.path("slotDemand").asDouble(),
                view.path("infeasible").asBoolean(), view.path("mode").asText().equals("observe")));
            for (JsonNode e : view.get("recentEvents")) {
                events.add(e.toString());
            }
            for (int i : out) {
                outs.add(new Object[] {i < nodes.size() ? nodes.get(i) : Haproxy.server(i), t});
            }
            polls++;
        }
    }

    /** @return polls that completed */
    public synchronized int polls() {
        return polls;
    }

    /** @return polls that failed (coordinator or HAProxy unreachable, garbled answer) */
    public synchronized int pollErrors() {
        return pollErrors;
    }

    /** @return the most nodes any poll saw in the coordinator's {@code collecting} list */
    public synchronized int maxCollecting() {
        return maxCollecting;
    }

    /** @return the slot demand ({@code slotDemand} in {@code /v1/cluster}) the last poll saw, 0 before any */
    public synchronized double lastSlotDemand() {
        return demand.isEmpty() ? 0 : demand.get(demand.size() - 1).slots();
    }

    /** @return how many polls from {@code from} on saw the coordinator judge the schedule infeasible */
    public synchronized long infeasiblePolls(long from) {
        return demand.stream().filter(d -> d.at() >= from && d.infeasible()).count();
    }

    /** @return how many polls from {@code from} on saw the coordinator stepped down, leaving collections to the JVMs */
    public synchronized long observingPolls(long from) {
        return demand.stream().filter(d -> d.at() >= from && d.observing()).count();
    }

    /** @return how many (poll, server) samples saw a server out of rotation */
    public synchronized int outSamples() {
        return outs.size();
    }

    /** @return distinct slot events seen */
    public synchronized int eventCount() {
        return events.size();
    }

    /** @return how many of the events seen have this type ({@code GRANTED}, {@code EXPIRED}, ...) */
    public long count(String type) {
        return parsedEvents().stream().filter(e -> e.get("type").asText().equals(type)).count();
    }

    /**
     * @return how many of the events seen from {@code from} on (the coordinator's clock, milliseconds since the epoch)
     *     are grants beyond K for a due request ({@link SlotLedger#DUE_DETAIL})
     */
    public long dueGrants(long from) {
        return parsedEvents().stream().filter(e -> e.get("type").asText().equals("GRANTED")
            && e.get("at").asLong() >= from && e.path("detail").asText().equals(SlotLedger.DUE_DETAIL)).count();
    }

    /**
     * For a failure's message: each event of this type, after the eight events of the same node that came before it.
     *
     * @return one line per event, in the coordinator's order
     */
    public List<String> withNodeHistory(String type) {
        List<JsonNode> all = parsedEvents();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            JsonNode e = all.get(i);
            if (!e.get("type").asText().equals(type)) {
                continue;
            }
            String node = e.path("node").asText();
            List<String> before = new ArrayList<>();
            for (int j = i - 1; j >= 0 && before.size() < 8; j--) {
                if (all.get(j).path("node").asText().equals(node)) {
                    before.add(0, all.get(j).toString());
                }
            }
            out.addAll(before);
            out.add(e + "  <-- " + type);
        }
        return out;
    }

    private List<JsonNode> parsedEvents() {
        List<String> copy;
        synchronized (this) {
            copy = new ArrayList<>(events);
        }
        List<JsonNode> out = new ArrayList<>();
        for (String s : copy) {
            try {
                out.add(JSON.readTree(s));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        out.sort(Comparator.comparingLong(e -> e.get("at").asLong()));
        return out;
    }

    /** @return the grants seen: GRANTED opens a node's grant; RELEASED, EXPIRED, CANCELLED, LEFT or LOST closes it */
    public List<Grant> grants() {
        List<Grant> out = new ArrayList<>();
        Map<String, long[]> open = new HashMap<>(); // node -> {epoch, start}
        for (JsonNode e : parsedEvents()) {
            String node = e.get("node").asText();
            long at = e.get("at").asLong();
            switch (e.get("type").asText()) {
                case "GRANTED" -> {
                    long[] prev = open.put(node, new long[] {e.path("epoch").asLong(), at});
                    if (prev != null) {
                        out.add(new Grant(node, prev[0], prev[1], at)); // should not happen; kept visible
                    }
                }
                case "RELEASED", "EXPIRED", "CANCELLED", "LEFT", "LOST" -> {
                    long[] g = open.remove(node);
                    if (g != null) {
                        out.add(new Grant(node, g[0], g[1], at));
                    }
                }
                default -> { }
            }
        }
        open.forEach((node, g) -> out.add(new Grant(node, g[0], g[1], Long.MAX_VALUE)));
        return out;
    }

    /** @return grants per node, every node listed (0 when it had none) */
    public Map<String, Integer> grantsPerNode(List<Grant> grants) {
        Map<String, Integer> out = new TreeMap<>();
        nodes.forEach(n -> out.put(n, 0));
        grants.forEach(g -> out.merge(g.node(), 1, Integer::sum));
        return out;
    }

    /** @return the most grants open at the same instant (an end and a start in the same millisecond do not overlap) */
    public static int maxConcurrent(List<Grant> grants) {
        List<long[]> edges = new ArrayList<>(); // {time, +1/-1}; ends before starts at the same millisecond
        for (Grant g : grants) {
            edges.add(new long[] {g.start(), 1});
            edges.add(new long[] {g.end(), -1});
        }
        edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int open = 0;
        int max = 0;
        for (long[] e : edges) {
            open += (int) e[1];
            max = Math.max(max, open);
        }
        return max;
    }

    /**
     * @param slackMs how far before a grant's start or after its end a server may still be seen out
     * @return samples of a server out of rotation with no grant of its node within {@code slackMs}, as
     *     {@code node@time} in the coordinator's clock (the clock offset taken from the fastest poll)
     */
    public List<String> rotationViolations(List<Grant> grants, long slackMs) {
        List<Object[]> samples;
        long offset;
        synchronized (this) {
            samples = new ArrayList<>(outs);
            offset = offsets.stream().min(Comparator.comparingLong(o -> o[0])).map(o -> o[1]).orElse(0L);
        }
        List<String> bad = new ArrayList<>();
        for (Object[] o : samples) {
            String node = (String) o[0];
            long t = (Long) o[1] + offset;
            boolean covered = grants.stream().anyMatch(g -> g.node().equals(node)
                && g.start() - slackMs <= t && t <= (g.end() == Long.MAX_VALUE ? Long.MAX_VALUE : g.end() + slackMs));
            if (!covered) {
                bad.add(node + "@" + t);
            }
        }
        return bad;
    }
}
