package io.bladegc.agent.ratis;

import io.bladegc.agent.bridge.GateBridge;
import java.util.concurrent.CompletableFuture;
import net.bytebuddy.asm.Advice;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.server.RaftServer;

/**
 * Inlined into Ratis' {@code RaftServerImpl.submitClientRequestAsync(RaftClientRequest)} by
 * {@code RatisServerInstrumentation}: a client request reaching a peer that does not lead its group
 * passes the JVM's gate ({@link GateBridge}) like an HTTP request. Admitted, it is in flight until its reply future
 * completes, so a drain before a collection waits for it; shed (the gate closed for a collection), it is answered
 * {@code NotLeaderException} naming the leader this peer knows, and the client goes there. The leader's own requests
 * pass uncounted: a leader hands off before it collects, or collects in place when its pauses are short. Runs inside
 * Ratis' class, so it names only Ratis', the JDK's and the bootstrap bridge's types.
 */
public final class ClientRequestAdvice {
    private ClientRequestAdvice() {
    }

    /**
     * @return the reply for a shed request (the method body is then skipped), or {@code null}
     */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static RaftClientReply enter(@Advice.This RaftServer.Division self, @Advice.Argument(0) RaftClientRequest request,
                                 @Advice.Local("admitted") boolean admitted) {
        admitted = false;
        if (self.getInfo().isLeader()) {
            return null;
        }
        int gate = GateBridge.enter();
        if (gate == GateBridge.SHED) {
            RaftPeerId leader = self.getInfo().getLeaderId();
            RaftGroup group = self.getGroup();
            return RaftClientReply.newBuilder().setRequest(request).setException(new NotLeaderException(
                self.getMemberId(), leader == null ? null : group.getPeer(leader), group.getPeers())).build();
        }
        admitted = gate == GateBridge.ADMITTED;
        return null;
    }

    /**
     * @param shed     the enter advice's reply for a shed request, or {@code null}
     * @param admitted whether the request entered the gate
     * @param reply    the method's reply future: the shed reply's, or the admitted request's, watched for its end
     * @param thrown   what the method threw, if anything (the request then leaves the gate at once)
     */
    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter RaftClientReply shed, @Advice.Local("admitted") boolean admitted,
                     @Advice.Return(readOnly = false) CompletableFuture<RaftClientReply> reply,
                     @Advice.Thrown Throwable thrown) {
        if (shed != null) {
            reply = CompletableFuture.completedFuture(shed);
        } else if (admitted) {
            if (thrown != null || reply == null) {
                GateBridge.exit();
            } else {
                reply.whenComplete(GateBridge.exitWhenDone());
            }
        }
    }
}
