package io.bladegc.agent.instrumentation;

import io.bladegc.agent.bridge.GateBridge;
import io.bladegc.api.BladeNode;
import io.bladegc.api.Gate;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;

/**
 * Puts the bridge classes ({@code io.bladegc.agent.bridge}) on the bootstrap class path, where code the agent rewrote
 * in any class loader (a servlet container's, a webapp's) finds them. Their bytes are copied from the agent jar into
 * a temporary jar without loading them here first (a copy loaded by the system class loader would be a second,
 * separate class, and the agent must reach the bootstrap one); the bootstrap loader loads them from it, and the file
 * is deleted at once. Called once, before the first reference.
 */
final class BootstrapBridges {
    /** The classes to copy, as resource names. */
    static final List<String> CLASSES = List.of("io/bladegc/agent/bridge/GateBridge.class",
        "io/bladegc/agent/bridge/GateBridge$InFlightUntilComplete.class",
        "io/bladegc/api/RetryAfter.class", // as the shaded jar names it: io/bladegc/agent/internal/api/...
        "io/bladegc/agent/bridge/ExplicitGcBridge.class");

    private static boolean injected;

    private BootstrapBridges() {
    }

    /**
     * Injects the bridges, once per JVM.
     *
     * @throws IOException when the agent jar cannot be read or the temporary jar not written
     */
    static synchronized void inject(Instrumentation inst) throws IOException {
        if (injected) {
            return;
        }
        Path jar = Files.createTempFile("blade-bridges-", ".jar");
        try {
            ClassLoader own = BootstrapBridges.class.getClassLoader();
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
                for (String name : CLASSES) {
                    try (InputStream in = own.getResourceAsStream(name)) {
                        if (in == null) {
                            throw new IOException("the agent jar lacks " + name);
                        }
                        out.putNextEntry(new ZipEntry(name));
                        in.transferTo((OutputStream) out);
                        out.closeEntry();
                    }
                }
            }
            try (JarFile bridges = new JarFile(jar.toFile())) { // the JVM opens the file by its name
                inst.appendToBootstrapClassLoaderSearch(bridges);
            }
            for (String name : CLASSES) { // from the bootstrap loader, which holds the jar open from now on
                Class.forName(name.substring(0, name.length() - ".class".length()).replace('/', '.'), false, null);
            }
        } catch (ClassNotFoundException e) {
            throw new IOException("the bootstrap class path does not serve the bridges it was given", e);
        } finally {
            // the file itself goes now, not at exit: a JVM killed with SIGKILL would leave one behind every start
            try {
                Files.delete(jar);
            } catch (IOException e) {
                jar.toFile().deleteOnExit(); // a file system that keeps an open file (Windows): at exit
            }
        }
        injected = true;
    }

    /**
     * Injects the bridges (once) and connects {@link GateBridge} to {@code node}'s gate, so that rewritten code in any
     * class loader passes it. Does not arm the node: whoever gates requests with it and wants single-node collections
     * calls {@link BladeNode#attachGate()}.
     *
     * @throws IOException when the bridges cannot be injected
     */
    static void connectGate(Instrumentation inst, BladeNode node) throws IOException {
        inject(inst);
        Gate gate = node.gate();
        GateBridge.install(gate::tryEnter, gate::exit, () -> node.retryAfter().toNanos());
    }
}
