package io.bladegc.agent.instrumentation;

import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.BladeOptions.ExplicitGc;
import io.bladegc.api.BladeOptions.Instrument;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.util.Locale;

/**
 * The agent's class instrumentation: always {@link RatisServerInstrumentation} (which touches one
 * Ratis class if the application loads it), and, as the options ask, {@code instrument=servlet}
 * ({@link ServletInstrumentation}) and {@code explicitGc=coordinate|ignore} ({@link ExplicitGcInterception}). These
 * two first put the bridge classes on the bootstrap class path ({@link BootstrapBridges}).
 */
public final class Instrumenting {
    private Instrumenting() {
    }

    /**
     * @return the end of the start-up line: what was instrumented, or empty
     * @throws IOException when the bridges cannot be put on the bootstrap class path
     */
    public static String install(Instrumentation inst, BladeNode node, BladeOptions options, System.Logger log)
        throws IOException {
        RatisServerInstrumentation.install(inst, node, log);
        boolean servlets = options.instrument() == Instrument.SERVLET;
        boolean explicit = options.explicitGc() != ExplicitGc.PASS;
        if (!servlets && !explicit) {
            return "";
        }
        BootstrapBridges.inject(inst);
        StringBuilder line = new StringBuilder();
        if (servlets) {
            ServletInstrumentation.install(inst, node, log);
            line.append(", instrument=servlet");
        }
        if (explicit) {
            ExplicitGcInterception.install(inst, node, options.explicitGc());
            line.append(", explicitGc=").append(options.explicitGc().name().toLowerCase(Locale.ROOT));
        }
        return line.toString();
    }
}
