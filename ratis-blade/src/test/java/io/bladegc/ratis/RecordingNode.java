package io.bladegc.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.testing.FakeNode;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;

/**
 * The shared fake node ({@link FakeNode}) on a Raft peer: each collection also records whether the peer led any group
 * (but the slot group) at that moment. Thread-safe.
 */
final class RecordingNode extends FakeNode {
    /** For each collection, whether the peer led each group but the slot group then. */
    final List<Boolean> ledAtCollection = new CopyOnWriteArrayList<>();

    /**
     * @param skip   a group whose leadership is not recorded (the slot group), or {@code null}
     * @param server the peer, or {@code null} to record no leadership
     */
    RecordingNode(RaftGroupId skip, RaftServer server) {
        onCollect = () -> {
            if (server == null) {
                return;
            }
            try {
                for (RaftGroupId g : server.getGroupIds()) {
                    if (!g.equals(skip)) {
                        ledAtCollection.add(server.getDivision(g).getInfo().isLeader());
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        };
    }

    void awaitCollections(long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (collections.get() < n) {
            assertThat(System.nanoTime()).as("%d collections", n).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
