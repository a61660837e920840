package io.bladegc.coordinator.http;

import io.netty.channel.Channel;
import java.util.HashMap;
import java.util.Map;

/**
 * The most connections the coordinator keeps open, and which one makes room for a new one beyond that, so that a flood
 * of idle sockets cannot lock members out. A connection that comes when all are taken is kept if one open connection
 * has been idle (no request waiting for its answer, nothing read or answered) for at least {@link #MIN_IDLE_NANOS}:
 * the one idle longest is closed for it, a connection that never had a request answered with 2xx before any that had.
 * A long-poll in progress is never closed. Only when no connection is idle that long is the new one closed instead.
 *
 * <p>A member's agent sends a heartbeat every second on the connection it keeps, and keeps its long-poll open, so a
 * flood has to open more connections than the limit every second to push a member out; a limit per address would not
 * help a coordinator run as a sidecar, where every node and every other local process connects from the loopback
 * address.
 *
 * <p>Thread-safe: {@link #admit} and {@link #closed} run on any event loop and are synchronized (a scan of the open
 * connections only when all are taken).
 */
public final class ConnectionLimit {
    /** How long a connection must have been idle before a new one may take its place. */
    static final long MIN_IDLE_NANOS = 1_000_000_000L;

    private final int max;
    private final Map<Channel, ConnectionActivity> open = new HashMap<>();

    /** @param max the most connections open at once */
    public ConnectionLimit(int max) {
        this.max = max;
    }

    /**
     * Takes a new connection in, closing an idle one to make room when all are taken.
     *
     * @param channel  the new connection
     * @param activity its {@link ConnectionActivity} handler
     * @return whether it may stay; when not, the caller closes it
     */
    public synchronized boolean admit(Channel channel, ConnectionActivity activity) {
        if (open.size() >= max) {
            Channel idlest = idlest();
            if (idlest == null) {
                return false;
            }
            open.remove(idlest);
            idlest.close();
        }
        open.put(channel, activity);
        return true;
    }

    /** The connection closed: its place is free. */
    public synchronized void closed(Channel channel) {
        open.remove(channel);
    }

    /** @return connections open now */
    public synchronized int open() {
        return open.size();
    }

    private Channel idlest() {
        Channel best = null;
        boolean bestServed = true;
        long bestIdle = 0;
        for (Map.Entry<Channel, ConnectionActivity> e : open.entrySet()) {
            long idle = e.getValue().idleNanos();
            boolean served = e.getValue().served();
            if (idle >= MIN_IDLE_NANOS && (best == null || (!served && bestServed)
                || (served == bestServed && idle > bestIdle))) {
                best = e.getKey();
                bestServed = served;
                bestIdle = idle;
            }
        }
        return best;
    }
}
