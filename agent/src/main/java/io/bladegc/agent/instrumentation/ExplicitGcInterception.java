package io.bladegc.agent.instrumentation;

import io.bladegc.agent.bridge.ExplicitGcBridge;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions.ExplicitGc;
import io.bladegc.api.jmx.StatsMBean;
import java.lang.instrument.Instrumentation;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code explicitGc=coordinate|ignore}: what a rewritten {@code System.gc()} / {@code Runtime.gc()} does
 * ({@link ExplicitGcRewriter}), and how often. {@code coordinate} asks the node for a planned full collection
 * ({@link BladeNode#requestCollection()}) and returns at once; when the node cannot plan one it collects at once, as
 * the call would have ({@code PassedThrough}). {@code ignore} does nothing. Classes loaded before the agent started
 * (the JVM's own start-up) are not rewritten.
 *
 * <p>Publishes {@code io.bladegc:type=ExplicitGc} with the counters {@code Coordinated}, {@code PassedThrough} and
 * {@code Ignored}. Thread-safe.
 */
final class ExplicitGcInterception {
    static final String MBEAN = "io.bladegc:type=ExplicitGc";

    private final LongAdder coordinated = new LongAdder();
    private final LongAdder passedThrough = new LongAdder();
    private final LongAdder ignored = new LongAdder();

    private ExplicitGcInterception() {
    }

    /** Installs the action for {@code mode} (not {@link ExplicitGc#PASS}) and the class-load rewrite. */
    static void install(Instrumentation inst, BladeNode node, ExplicitGc mode) {
        ExplicitGcInterception counts = new ExplicitGcInterception();
        ExplicitGcBridge.install(mode == ExplicitGc.IGNORE ? counts.ignored::increment : () -> {
            if (node.requestCollection()) {
                counts.coordinated.increment();
            } else {
                counts.passedThrough.increment();
                System.gc();
            }
        });
        new StatsMBean("Blade explicit collections", counts::stats, Map.of()).publish(MBEAN);
        inst.addTransformer(new ExplicitGcRewriter());
    }

    private Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("Coordinated", coordinated.sum());
        m.put("PassedThrough", passedThrough.sum());
        m.put("Ignored", ignored.sum());
        return m;
    }
}
