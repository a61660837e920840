package io.bladegc.benchmarks.demo;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Turns on Blade's per-collection lines in a benchmark's child JVM: Blade tells each collection at DEBUG once a node
 * has settled (java.util.logging's {@code FINE}), and the benchmarks read those lines (grants, hand-offs, timelines).
 * What a user who wants them does in a logging configuration ({@code io.bladegc.level = FINE}), done here in code so
 * that every child of the harness gets it without a configuration file.
 */
public final class BladeEventLines {
    /** Held: java.util.logging keeps loggers weakly, and a collected logger forgets its level. */
    private static final Logger BLADE = Logger.getLogger("io.bladegc");

    private BladeEventLines() {
    }

    /** Lets {@code io.bladegc} and the root logger's handlers pass {@code FINE} records. */
    public static void enable() {
        BLADE.setLevel(Level.FINE);
        for (Handler h : Logger.getLogger("").getHandlers()) {
            if (h.getLevel().intValue() > Level.FINE.intValue()) {
                h.setLevel(Level.FINE);
            }
        }
    }
}
