package io.bladegc.agent.instrumentation;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.bladegc.agent.bridge.GateBridge;
import io.bladegc.agent.servlet.EntryAdviceTemplates;
import io.bladegc.api.BladeNode;
import io.bladegc.api.jmx.StatsMBean;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.WeakHashMap;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

/**
 * {@code instrument=servlet}: gates every servlet container of the JVM with no filter in the application. Byte Buddy
 * inlines {@code EntryAdvice} (or its javax twin, see {@code EntryAdviceTemplates}) into each concrete {@code Servlet.service(request,
 * response)} and {@code Filter.doFilter(request, response, chain)} of either API, in class loaders that can see that
 * API; the advice counts a request at its first entry (see the advice). Blade's own classes are left alone, so a
 * {@code BladeFilter} keeps its readiness endpoint and, being inside a counted request, counts nothing twice.
 * Classes already loaded when the agent attaches late are retransformed.
 *
 * <p>Publishes {@code io.bladegc:type=ServletEntry} with {@code Shed}: requests the advice answered 503.
 */
final class ServletInstrumentation {
    static final String MBEAN = "io.bladegc:type=ServletEntry";

    private ServletInstrumentation() {
    }

    /**
     * Installs the advice, then connects the bridge to the node's gate and arms the node: if the advice cannot be
     * installed, the node is left as it was. Until the bridge is connected, requests pass uncounted.
     */
    static void install(Instrumentation inst, BladeNode node, System.Logger log) throws IOException {
        ClassFileLocator advice = EntryAdviceTemplates.locator(ServletInstrumentation.class.getClassLoader());
        new AgentBuilder.Default()
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
            .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
            .with(new FailureLog(log))
            .ignore(nameStartsWith("io.bladegc.").or(nameStartsWith("java.")).or(nameStartsWith("jdk."))
                .or(nameStartsWith("sun.")).or(nameStartsWith("com.sun.")))
            .type(servletOrFilter("jakarta"), new SeesApi("jakarta"))
            .transform(new AgentBuilder.Transformer.ForAdvice().include(advice)
                .advice(entry("jakarta", "service", 2), EntryAdviceTemplates.JAKARTA)
                .advice(entry("jakarta", "doFilter", 3), EntryAdviceTemplates.JAKARTA))
            .type(servletOrFilter("javax"), new SeesApi("javax"))
            .transform(new AgentBuilder.Transformer.ForAdvice().include(advice)
                .advice(entry("javax", "service", 2), EntryAdviceTemplates.JAVAX)
                .advice(entry("javax", "doFilter", 3), EntryAdviceTemplates.JAVAX))
            .installOn(inst);
        BootstrapBridges.connectGate(inst, node);
        node.attachGate();
        new StatsMBean("Blade zero-code servlet entry", () -> Map.of("Shed", GateBridge.shedCount()), Map.of())
            .publish(MBEAN);
    }

    private static ElementMatcher.Junction<TypeDescription> servletOrFilter(String api) {
        return not(isInterface()).and(hasSuperType(namedOneOf(api + ".servlet.Servlet", api + ".servlet.Filter")));
    }

    /** {@code service(ServletRequest, ServletResponse)} or {@code doFilter(ServletRequest, ServletResponse, chain)} */
    private static ElementMatcher.Junction<MethodDescription> entry(String api, String name, int arguments) {
        return named(name).and(not(isAbstract())).and(takesArguments(arguments))
            .and(takesArgument(0, named(api + ".servlet.ServletRequest")))
            .and(takesArgument(1, named(api + ".servlet.ServletResponse")));
    }

    /**
     * Whether a class loader can see a servlet API: checked once per loader, so that classes of loaders without one
     * (most of them) are never matched against the type hierarchy.
     */
    private static final class SeesApi implements ElementMatcher<ClassLoader> {
        private final String servletClass;
        private final Map<ClassLoader, Boolean> seen = new WeakHashMap<>();

        SeesApi(String api) {
            this.servletClass = api + "/servlet/Servlet.class";
        }

        @Override
        public boolean matches(ClassLoader loader) {
            if (loader == null) {
                return false;
            }
            synchronized (seen) {
                return seen.computeIfAbsent(loader, l -> l.getResource(servletClass) != null);
            }
        }
    }

    /** Logs a class that could not be instrumented, once per class. */
    private static final class FailureLog extends AgentBuilder.Listener.Adapter {
        private final System.Logger log;

        FailureLog(System.Logger log) {
            this.log = log;
        }

        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded,
                            Throwable throwable) {
            log.log(Level.WARNING, "Blade: cannot instrument " + typeName + " (" + throwable
                + "); its requests are not gated");
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module,
                                     boolean loaded, DynamicType dynamicType) {
            log.log(Level.DEBUG, "Blade: gating " + type.getName());
        }
    }
}
