package io.bladegc.agent.instrumentation;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.bridge.ExplicitGcBridge;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The call-site rewrite on real class files, loaded and run in a class loader of the test's own. */
class ExplicitGcRewriterTest {
    private final ExplicitGcRewriter rewriter = new ExplicitGcRewriter();

    /** A library's habits; its calls must reach the bridge once rewritten. */
    public static final class CallsGc implements Runnable {
        @Override
        public void run() {
            System.gc();
            Runtime.getRuntime().gc();
        }
    }

    /** Mentions no collection at all. */
    public static final class Quiet implements Runnable {
        @Override
        public void run() {
            System.identityHashCode(this);
        }
    }

    @AfterEach
    void uninstall() {
        ExplicitGcBridge.install(null);
    }

    @Test
    void bothCallsOfALibraryClassReachTheBridge() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        ExplicitGcBridge.install(calls::incrementAndGet);
        byte[] original = bytes(CallsGc.class);
        byte[] rewritten = rewriter.transform(getClass().getClassLoader(), "com/example/CallsGc", null, null,
            original);
        assertThat(rewritten).isNotNull();

        Class<?> c = new Definer(CallsGc.class.getName(), rewritten).loadClass(CallsGc.class.getName());
        ((Runnable) c.getDeclaredConstructor().newInstance()).run();
        assertThat(calls).as("System.gc() and Runtime.gc(), both through the bridge").hasValue(2);
    }

    @Test
    void classesWithoutTheNameGcAreNotEvenParsed() throws Exception {
        assertThat(ExplicitGcRewriter.mentionsGc(bytes(Quiet.class))).isFalse();
        assertThat(ExplicitGcRewriter.mentionsGc(bytes(CallsGc.class))).isTrue();
        assertThat(rewriter.transform(getClass().getClassLoader(), "com/example/Quiet", null, null,
            bytes(Quiet.class))).isNull();
    }

    @Test
    void theJdksAndBladesOwnClassesAndUnreadableOnesAreLeftAlone() throws Exception {
        byte[] b = bytes(CallsGc.class);
        assertThat(rewriter.transform(null, "java/nio/Bits", null, null, b)).as("bootstrap").isNull();
        assertThat(rewriter.transform(ClassLoader.getPlatformClassLoader(), "java/sql/X", null, null, b))
            .as("platform").isNull();
        assertThat(rewriter.transform(getClass().getClassLoader(), "io/bladegc/agent/internal/api/internal/GcTrigger",
            null, null, b)).as("Blade's own").isNull();
        byte[] garbage = {(byte) 0xCA, (byte) 0xFE, 1, 0, 2, 'g', 'c'};
        assertThat(rewriter.transform(getClass().getClassLoader(), "com/example/Bad", null, null, garbage))
            .as("not a class file ASM can read").isNull();
    }

    private static byte[] bytes(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream("/" + c.getName().replace('.', '/') + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Defines one class from given bytes, everything else from the test's class loader. */
    private static final class Definer extends ClassLoader {
        private final String name;
        private final byte[] bytes;

        Definer(String name, byte[] bytes) {
            super(ExplicitGcRewriterTest.class.getClassLoader());
            this.name = name;
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            if (n.equals(name)) {
                synchronized (getClassLoadingLock(n)) {
                    Class<?> c = findLoadedClass(n);
                    return c != null ? c : defineClass(n, bytes, 0, bytes.length);
                }
            }
            return super.loadClass(n, resolve);
        }
    }
}
