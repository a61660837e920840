package io.bladegc.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import java.lang.System.Logger.Level;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

/**
 * Works around a Ratis bug that costs a Raft peer's clients a request timeout at each leadership hand-off: a
 * linearizable read still waiting for its ReadIndex round when the leader steps down is never answered (Ratis 3.2.2
 * and 3.3.0; {@code RaftServerImpl.readException2Reply} rethrows the {@code NotLeaderException}, which gRPC cannot
 * serialise, so the client's call stays open until its deadline). When Ratis' {@code RaftServerImpl} loads, the agent
 * inlines {@link io.bladegc.agent.ratis.StepDownReadAdvice} at the end of that method: the read is answered with the
 * {@code NotLeaderException} reply Ratis gives writes at step-down, and the client sends it to the new leader at once.
 *
 * <p>Only that method, with that exact signature, is touched, and only in a class that loads after the agent starts.
 * A Ratis without it (renamed, or another signature) is left as it is, with one line saying so when the class
 * loads. JVMs without Ratis pay one string comparison per class loaded. Thread-safe.
 */
public final class RatisStepDownReads implements ClassFileTransformer {
    static final String TARGET = "org.apache.ratis.server.impl.RaftServerImpl";
    private static final String ADVICE = "io.bladegc.agent.ratis.StepDownReadAdvice";
    private static final ElementMatcher<MethodDescription> METHOD = named("readException2Reply")
        .and(takesArguments(2)).and(returns(named("org.apache.ratis.protocol.RaftClientReply")));

    private final System.Logger log;

    private RatisStepDownReads(System.Logger log) {
        this.log = log;
    }

    /**
     * Registers the transformer. The agent calls it at start; public so that a test JVM can install it too.
     *
     * @param inst the agent's instrumentation
     * @param log  where the one line about the patch goes
     */
    public static void install(Instrumentation inst, System.Logger log) {
        inst.addTransformer(new RatisStepDownReads(log));
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                            byte[] bytes) {
        if (loader == null || redefined != null || !TARGET.replace('.', '/').equals(className)) {
            return null;
        }
        try {
            ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(TARGET, bytes),
                ClassFileLocator.ForClassLoader.of(loader),
                ClassFileLocator.ForClassLoader.of(RatisStepDownReads.class.getClassLoader()));
            TypePool pool = TypePool.Default.of(locator);
            TypeDescription type = pool.describe(TARGET).resolve();
            if (type.getDeclaredMethods().filter(METHOD).size() != 1) {
                log.log(Level.WARNING, "Blade: this Ratis has no RaftServerImpl.readException2Reply(request, "
                    + "throwable); a read pending when its leader steps down may wait out the client's timeout");
                return null;
            }
            byte[] patched = new ByteBuddy().with(Implementation.Context.Disabled.Factory.INSTANCE)
                .redefine(type, locator)
                .visit(Advice.to(pool.describe(ADVICE).resolve(), locator).on(METHOD))
                .make(pool)
                .getBytes();
            log.log(Level.INFO, "Blade: Ratis patched: a linearizable read pending when its leader steps down is "
                + "answered NotLeaderException (clients resend it to the new leader) instead of never");
            return patched;
        } catch (RuntimeException | LinkageError e) {
            log.log(Level.WARNING, "Blade: cannot patch Ratis' step-down reads (" + e + "); Ratis runs as it is");
            return null;
        }
    }
}
