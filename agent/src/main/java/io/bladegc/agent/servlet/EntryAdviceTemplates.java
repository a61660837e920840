package io.bladegc.agent.servlet;

import java.io.IOException;
import java.io.InputStream;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;

/**
 * Where Byte Buddy reads the servlet entry advice: {@link EntryAdvice} is written once, against
 * {@code jakarta.servlet}; its {@code javax.servlet} twin, {@value #JAVAX}, is made from its class file by renaming
 * every {@code jakarta/servlet/} type to {@code javax/servlet/} (the two APIs declare the calls the advice makes
 * alike, and the advice's constants, such as {@code SC_SERVICE_UNAVAILABLE}, are inlined by javac). The twin is only
 * ever read as a template, like {@link EntryAdvice}; no class of that name is loaded. Stateless and thread-safe.
 */
public final class EntryAdviceTemplates {
    /** The advice for {@code jakarta.servlet} containers. */
    public static final String JAKARTA = "io.bladegc.agent.servlet.EntryAdvice";
    /** The advice for {@code javax.servlet} containers, served by {@link #locator}. */
    public static final String JAVAX = "io.bladegc.agent.servlet.JavaxEntryAdvice";

    private static final String JAKARTA_API = "jakarta/servlet/";
    private static final String JAVAX_API = "javax/servlet/";

    private EntryAdviceTemplates() {
    }

    /**
     * @param agent the agent's class loader, which holds {@value #JAKARTA} and the annotations it uses
     * @return a locator for both templates ({@value #JAVAX} made here, once per call), and else the agent's classes
     * @throws IOException when the agent's class loader lacks the template
     */
    public static ClassFileLocator locator(ClassLoader agent) throws IOException {
        return new ClassFileLocator.Compound(ClassFileLocator.Simple.of(JAVAX, javaxTemplate(agent)),
            ClassFileLocator.ForClassLoader.of(agent));
    }

    /** @return the class file of {@value #JAVAX}: {@value #JAKARTA}'s, on the {@code javax.servlet} API */
    static byte[] javaxTemplate(ClassLoader agent) throws IOException {
        byte[] jakarta;
        try (InputStream in = agent.getResourceAsStream(internalName(JAKARTA) + ".class")) {
            if (in == null) {
                throw new IOException("the agent lacks the servlet advice " + JAKARTA);
            }
            jakarta = in.readAllBytes();
        }
        ClassWriter writer = new ClassWriter(0); // renaming changes neither stack sizes nor frames' shapes
        new ClassReader(jakarta).accept(new ClassRemapper(writer, new ToJavax()), 0);
        return writer.toByteArray();
    }

    private static String internalName(String className) {
        return className.replace('.', '/');
    }

    /** Renames the template and the {@code jakarta.servlet} types; leaves every other name alone. */
    private static final class ToJavax extends Remapper {
        ToJavax() {
            super(Opcodes.ASM9);
        }

        @Override
        public String map(String name) {
            if (name.equals(internalName(JAKARTA))) {
                return internalName(JAVAX);
            }
            return name.startsWith(JAKARTA_API) ? JAVAX_API + name.substring(JAKARTA_API.length()) : name;
        }
    }
}
