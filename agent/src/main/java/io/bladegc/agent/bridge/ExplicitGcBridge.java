package io.bladegc.agent.bridge;

import java.util.Objects;

/**
 * Where application and library calls to {@code System.gc()} and {@code Runtime.gc()} land once the agent rewrote
 * them ({@code explicitGc=coordinate} or {@code ignore}). On the bootstrap class path, like {@link GateBridge}, so
 * that rewritten code in any class loader reaches it. Until {@link #install} it collects at once, as the call would
 * have. Thread-safe.
 */
public final class ExplicitGcBridge {
    private static volatile Runnable onGc;

    private ExplicitGcBridge() {
    }

    /** @param action what a rewritten call does instead of collecting at once */
    public static void install(Runnable action) {
        onGc = action;
    }

    /** Replaces {@code System.gc()}. */
    public static void gc() {
        Runnable r = onGc;
        if (r == null) {
            System.gc();
        } else {
            r.run();
        }
    }

    /**
     * Replaces {@code runtime.gc()}.
     *
     * @param runtime the receiver of the original call ({@link Runtime#getRuntime()})
     * @throws NullPointerException when {@code runtime} is null, as the original call would
     */
    public static void gc(Runtime runtime) {
        Objects.requireNonNull(runtime, "runtime");
        gc();
    }
}
