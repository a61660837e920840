package io.bladegc.agent.instrumentation;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Rewrites, as classes load, each call to {@code System.gc()} into {@code ExplicitGcBridge.gc()} and each call to
 * {@code Runtime.gc()} into {@code ExplicitGcBridge.gc(Runtime)}, in application and library classes: not in the JDK's
 * own (bootstrap and platform class loaders: the JDK's explicit collections, such as direct-memory reservation, need
 * to happen at once) and not in Blade's.
 *
 * <p>Uses the ASM that Byte Buddy bundles, directly: a class is parsed only when its constant pool holds the name
 * {@code gc} (a scan of its bytes), so the rewrite costs nearly nothing on the classes that do not call it, and the
 * replacement keeps the stack shape, so nothing else in the class changes. A class that cannot be read is left as is.
 * Thread-safe.
 */
final class ExplicitGcRewriter implements ClassFileTransformer {
    static final String BRIDGE = "io/bladegc/agent/bridge/ExplicitGcBridge";

    /** The constant-pool entry {@code CONSTANT_Utf8 "gc"}: tag 1, length 2, the two bytes. */
    private static final byte[] GC_NAME = {1, 0, 2, 'g', 'c'};

    private final ClassLoader platform = ClassLoader.getPlatformClassLoader();

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                            byte[] bytes) {
        if (loader == null || loader == platform || className == null || className.startsWith("io/bladegc/")
            || !mentionsGc(bytes)) {
            return null;
        }
        try {
            ClassReader reader = new ClassReader(bytes);
            ClassWriter writer = new ClassWriter(reader, 0);
            CallSites sites = new CallSites(writer);
            reader.accept(sites, 0);
            return sites.rewritten ? writer.toByteArray() : null;
        } catch (RuntimeException e) {
            return null; // a class ASM cannot read (newer than it knows): left as it is
        }
    }

    /** @return whether the class file contains the UTF-8 constant {@code gc} */
    static boolean mentionsGc(byte[] bytes) {
        outer:
        for (int i = 0; i + GC_NAME.length <= bytes.length; i++) {
            for (int j = 0; j < GC_NAME.length; j++) {
                if (bytes[i + j] != GC_NAME[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** Replaces the two calls in every method. */
    private static final class CallSites extends ClassVisitor {
        boolean rewritten;

        CallSites(ClassVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                         String[] exceptions) {
            return new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, name, descriptor, signature, exceptions)) {
                @Override
                public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean itf) {
                    if (method.equals("gc") && desc.equals("()V")) {
                        if (opcode == Opcodes.INVOKESTATIC && owner.equals("java/lang/System")) {
                            rewritten = true;
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "gc", "()V", false);
                            return;
                        }
                        if (opcode == Opcodes.INVOKEVIRTUAL && owner.equals("java/lang/Runtime")) {
                            rewritten = true;
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "gc", "(Ljava/lang/Runtime;)V", false);
                            return;
                        }
                    }
                    super.visitMethodInsn(opcode, owner, method, desc, itf);
                }
            };
        }
    }
}
