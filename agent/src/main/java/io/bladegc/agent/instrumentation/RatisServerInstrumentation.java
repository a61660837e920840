package io.bladegc.agent.instrumentation;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.bladegc.api.BladeNode;
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
 * Blade in a Raft peer on Apache Ratis: when Ratis' {@code RaftServerImpl} loads, the agent inlines two advices into
 * it (Byte Buddy), so that a hand-off and a collection cost the peer's clients a redirect rather than a wait:
 * <ul>
 *   <li>{@link io.bladegc.agent.ratis.StepDownReadAdvice} at the end of {@code readException2Reply}: works around a
 *       Ratis bug (3.2.2 to Ratis' main branch) in which a linearizable read still waiting for its ReadIndex round
 *       when the leader steps down is never answered ({@code readException2Reply} rethrows the
 *       {@code NotLeaderException}, which gRPC cannot serialise, so the client's call stays open until its deadline):
 *       the read is answered with the {@code NotLeaderException} reply Ratis gives writes at step-down.</li>
 *   <li>{@link io.bladegc.agent.ratis.ClientRequestAdvice} around {@code submitClientRequestAsync}: a peer that does
 *       not lead passes its client requests through the node's gate (the bridge connected here; the node is not
 *       armed by it, Blade for Raft arms it), so the drain before its collection waits for reads in flight and
 *       redirects new ones to the leader. Without it, clients that last wrote before a hand-off kept reading from
 *       the old leader (Ratis followers serve linearizable reads) while it collected: 442 ms for a read in
 *       raft-kv.</li>
 * </ul>
 *
 * <p>Only methods with exactly these signatures are touched, each on its own, and only in a class that loads after
 * the agent starts. A Ratis without one is left without that advice, with one line saying so when the class loads.
 * JVMs without Ratis pay one string comparison per class loaded. Thread-safe.
 */
final class RatisServerInstrumentation implements ClassFileTransformer {
    static final String TARGET = "org.apache.ratis.server.impl.RaftServerImpl";
    private static final ElementMatcher<MethodDescription> READ_REPLY = named("readException2Reply")
        .and(takesArguments(2)).and(returns(named("org.apache.ratis.protocol.RaftClientReply")));
    private static final ElementMatcher<MethodDescription> CLIENT_REQUEST = named("submitClientRequestAsync")
        .and(takesArguments(1)).and(takesArgument(0, named("org.apache.ratis.protocol.RaftClientRequest")))
        .and(returns(named("java.util.concurrent.CompletableFuture")));

    private final Instrumentation inst;
    private final BladeNode node;
    private final System.Logger log;

    private RatisServerInstrumentation(Instrumentation inst, BladeNode node, System.Logger log) {
        this.inst = inst;
        this.node = node;
        this.log = log;
    }

    /**
     * Registers the transformer. The agent calls it at start.
     *
     * @param inst the agent's instrumentation
     * @param node the JVM's node, whose gate client requests pass
     * @param log  where the one line about the patch goes
     */
    static void install(Instrumentation inst, BladeNode node, System.Logger log) {
        inst.addTransformer(new RatisServerInstrumentation(inst, node, log));
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
                ClassFileLocator.ForClassLoader.of(RatisServerInstrumentation.class.getClassLoader()));
            TypePool pool = TypePool.Default.of(locator);
            TypeDescription type = pool.describe(TARGET).resolve();
            boolean reads = type.getDeclaredMethods().filter(READ_REPLY).size() == 1;
            boolean requests = type.getDeclaredMethods().filter(CLIENT_REQUEST).size() == 1;
            if (!reads && !requests) {
                log.log(Level.WARNING, "Blade: this Ratis has neither RaftServerImpl.readException2Reply(request, "
                    + "throwable) nor submitClientRequestAsync(request); its clients may wait out a timeout at a "
                    + "hand-off and read from a peer while it collects");
                return null;
            }
            var builder = new ByteBuddy().with(Implementation.Context.Disabled.Factory.INSTANCE)
                .redefine(type, locator);
            if (reads) {
                builder = builder.visit(Advice.to(pool.describe("io.bladegc.agent.ratis.StepDownReadAdvice")
                    .resolve(), locator).on(READ_REPLY));
            }
            if (requests) {
                BootstrapBridges.connectGate(inst, node); // before the rewritten class can refer to the bridge
                builder = builder.visit(Advice.to(pool.describe("io.bladegc.agent.ratis.ClientRequestAdvice")
                    .resolve(), locator).on(CLIENT_REQUEST));
            }
            byte[] patched = builder.make(pool).getBytes();
            log.log(Level.INFO, "Blade: Ratis patched: "
                + (reads ? "a read pending when its leader steps down is answered NotLeaderException"
                    : "reads pending at step-down left as they are (no readException2Reply)")
                + "; " + (requests ? "client requests to a follower pass the gate (shed: NotLeaderException)"
                    : "client requests not gated (no submitClientRequestAsync)"));
            return patched;
        } catch (Exception | LinkageError e) {
            log.log(Level.WARNING, "Blade: cannot patch Ratis (" + e + "); Ratis runs as it is");
            return null;
        }
    }
}
