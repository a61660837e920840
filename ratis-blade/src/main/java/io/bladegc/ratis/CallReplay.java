package io.bladegc.ratis;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.LeaderSteppingDownException;
import org.apache.ratis.protocol.exceptions.NotLeaderException;

/**
 * Sends one write call again, as the same call (its client id and call id), until a leader answers it: what Ratis'
 * blocking client does for a {@code NotLeaderException} but not for a {@link LeaderSteppingDownException}, which it
 * hands to the application instead. A write whose earlier attempt got no answer, or was pending when its leader
 * stepped down, may be in the log already; sent as the same call it is answered from the retry cache of the leader
 * that applied it (a new leader is ready only once it applied every earlier entry), so it is applied once. Sent as a
 * new call it could be applied twice.
 *
 * <p>It follows the leader as Ratis' client does: a {@code NotLeaderException} names the leader or lists the peers to
 * try; a {@link LeaderSteppingDownException} or {@link LeaderNotReadyException} means the same peer again after
 * {@link RaftBladeClients#RETRY_SLEEP_MILLIS} ms; an attempt that fails (a timeout, a closed connection) moves on to
 * the next peer known. Any other answer ends the replay, as it would end a call.
 *
 * <p>Not thread-safe: one per replay, on the calling thread.
 */
final class CallReplay {
    private final RaftClient client;
    private final RaftClientRequest call;
    private final List<RaftPeerId> peers = new ArrayList<>();
    private RaftPeerId target;

    /**
     * @param client the client the call was made on (its transport is used as is)
     * @param call   an attempt of the call, as the client sent it
     */
    CallReplay(RaftClient client, RaftClientRequest call) {
        this.client = client;
        this.call = call;
        this.target = client.getLeaderId() != null ? client.getLeaderId() : call.getServerId();
    }

    /**
     * @param deadlineNanos when to stop ({@link System#nanoTime()})
     * @param refusal       what to throw when the deadline passes without an answer
     * @return the reply to the call: a success, or an answer that ends it (e.g. a state machine's exception)
     * @throws IOException the refusal, once the deadline passed; interrupted
     */
    RaftClientReply untilAnswered(long deadlineNanos, IOException refusal) throws IOException {
        while (System.nanoTime() - deadlineNanos < 0) {
            RaftClientReply reply;
            try {
                reply = client.getClientRpc().sendRequest(attemptOn(target));
            } catch (IOException e) {
                nextPeer();
                pause(refusal);
                continue;
            }
            NotLeaderException nle = reply.getNotLeaderException();
            if (nle != null) {
                follow(nle);
                pause(refusal);
            } else if (reply.getException() instanceof LeaderSteppingDownException
                || reply.getException() instanceof LeaderNotReadyException) {
                pause(refusal);
            } else {
                return reply;
            }
        }
        throw refusal;
    }

    private RaftClientRequest attemptOn(RaftPeerId server) {
        return RaftClientRequest.newBuilder().setClientId(call.getClientId()).setServerId(server)
            .setGroupId(call.getRaftGroupId()).setCallId(call.getCallId()).setMessage(call.getMessage())
            .setType(call.getType()).setTimeoutMs(call.getTimeoutMs()).build();
    }

    private void follow(NotLeaderException nle) {
        if (nle.getPeers() != null && !nle.getPeers().isEmpty()) {
            peers.clear();
            for (RaftPeer p : nle.getPeers()) {
                peers.add(p.getId());
            }
        }
        RaftPeer suggested = nle.getSuggestedLeader();
        if (suggested != null) {
            target = suggested.getId();
        } else {
            nextPeer();
        }
    }

    private void nextPeer() {
        if (!peers.isEmpty()) {
            target = peers.get((peers.indexOf(target) + 1) % peers.size());
        }
    }

    /** Waits {@link RaftBladeClients#RETRY_SLEEP_MILLIS} ms before the next try; interrupted, gives up. */
    static void pause(IOException refusal) throws InterruptedIOException {
        try {
            TimeUnit.MILLISECONDS.sleep(RaftBladeClients.RETRY_SLEEP_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException iioe = new InterruptedIOException("interrupted before sending a call again");
            iioe.initCause(refusal);
            throw iioe;
        }
    }
}
