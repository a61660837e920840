package io.bladegc.agent.ratis;

import java.util.concurrent.CompletionException;
import net.bytebuddy.asm.Advice;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.exceptions.NotLeaderException;

/**
 * Inlined at the end of Ratis' {@code RaftServerImpl.readException2Reply(RaftClientRequest, Throwable)} by
 * {@code RatisServerInstrumentation}: where that method would throw a {@code NotLeaderException} (a
 * linearizable read failed at step-down), it returns the reply Ratis gives a write in the same place instead. Runs
 * inside Ratis' class, so it names only Ratis' and the JDK's types.
 */
public final class StepDownReadAdvice {
    private StepDownReadAdvice() {
    }

    /**
     * @param request the read
     * @param reply   the method's reply, set when it threw a {@code NotLeaderException}
     * @param thrown  what the method threw, cleared when it is answered instead
     */
    @Advice.OnMethodExit(onThrowable = CompletionException.class)
    static void exit(@Advice.Argument(0) RaftClientRequest request,
                     @Advice.Return(readOnly = false) RaftClientReply reply,
                     @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (thrown != null && thrown.getCause() instanceof NotLeaderException) {
            reply = RaftClientReply.newBuilder().setRequest(request)
                .setException((NotLeaderException) thrown.getCause()).build();
            thrown = null;
        }
    }
}
