package io.bladegc.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.testkit.ChildJvm;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The shaded agent jar: manifest, relocation (blade-api and Jackson), nothing leaked. */
class AgentJarIT {
    private static final String AGENT_CLASS = "io.bladegc.agent.BladeAgent";

    private static List<JarEntry> entries(JarFile jar) {
        return jar.stream().filter(e -> !e.isDirectory()).toList();
    }

    @Test
    void manifestNamesTheAgentClass() throws IOException {
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertThat(main.getValue("Premain-Class")).isEqualTo(AGENT_CLASS);
            assertThat(main.getValue("Agent-Class")).isEqualTo(AGENT_CLASS);
            assertThat(main.getValue("Can-Redefine-Classes")).as("not needed yet").isNull();
            assertThat(main.getValue("Can-Retransform-Classes")).as("instrument=servlet on a late attach")
                .isEqualTo("true");
            assertThat(main.getValue("Main-Class")).isNull();
            assertThat(main.getValue("Class-Path")).as("one self-contained jar").isNull();
        }
    }

    @Test
    void everyClassIsUnderTheAgentPackage() throws IOException {
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            List<String> classes = entries(jar).stream().map(JarEntry::getName).filter(n -> n.endsWith(".class"))
                .toList();
            assertThat(classes).contains("io/bladegc/agent/BladeAgent.class",
                "io/bladegc/agent/internal/api/Blade.class",
                "io/bladegc/agent/internal/api/BladeOptionsParser.class",
                "io/bladegc/agent/internal/api/internal/LocalNode.class",
                "io/bladegc/agent/internal/api/jmx/StatsMBean.class",
                "io/bladegc/agent/coordination/CoordinatorClient.class",
                "io/bladegc/agent/instrumentation/Instrumenting.class",
                "io/bladegc/agent/internal/jackson/jr/ob/JSON.class",
                "io/bladegc/agent/internal/jackson/core/JsonFactory.class",
                "io/bladegc/agent/internal/bytebuddy/agent/builder/AgentBuilder.class",
                "io/bladegc/agent/internal/bytebuddy/jar/asm/ClassReader.class");
            assertThat(classes).allSatisfy(n -> assertThat(n).startsWith("io/bladegc/agent/"));
            assertThat(jar.stream().map(JarEntry::getName)).noneMatch(n -> n.startsWith("io/bladegc/api/"))
                .noneMatch(n -> n.startsWith("com/")).noneMatch(n -> n.startsWith("net/"))
                .noneMatch(n -> n.startsWith("META-INF/versions/"))
                .noneMatch(n -> n.startsWith("META-INF/services/"));
            assertThat(classes).noneMatch(n -> n.endsWith("module-info.class"));
        }
    }

    @Test
    void noClassStillReferencesTheUnrelocatedApi() throws IOException {
        List<String> leaks = new ArrayList<>();
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            for (JarEntry e : entries(jar)) {
                if (!e.getName().endsWith(".class")) {
                    continue;
                }
                try (InputStream in = jar.getInputStream(e)) {
                    // constant-pool strings are (modified) UTF-8: ASCII names can be searched as text
                    String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                    // Byte Buddy's messages name its own system properties (net.bytebuddy.safe): only class
                    // references, in internal form, count for it
                    if (text.contains("io/bladegc/api/") || text.contains("io.bladegc.api.")
                        || text.contains("com/fasterxml/") || text.contains("com.fasterxml.")
                        || text.contains("net/bytebuddy/")) {
                        leaks.add(e.getName());
                    }
                }
            }
        }
        assertThat(leaks).as("classes naming io.bladegc.api, com.fasterxml or net.bytebuddy after relocation")
            .isEmpty();
    }

    @Test
    void metaInfHoldsOnlyTheManifestTheAgentsOwnMavenMetadataAndTheBundledLicenses() throws IOException {
        try (JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            List<String> files = entries(jar).stream().map(JarEntry::getName).toList();
            assertThat(files.stream().filter(n -> n.startsWith("META-INF/"))).containsExactlyInAnyOrder(
                "META-INF/MANIFEST.MF",
                "META-INF/maven/io.bladegc/blade-agent/pom.xml",
                "META-INF/maven/io.bladegc/blade-agent/pom.properties",
                // jackson-core's (Apache-2.0, covering jackson-jr too) and its bundled FastDoubleParser's (MIT)
                "META-INF/LICENSE",
                "META-INF/NOTICE",
                "META-INF/FastDoubleParser-LICENSE",
                "META-INF/FastDoubleParser-NOTICE",
                "META-INF/thirdparty-LICENSE",
                // Byte Buddy's bundled ASM (BSD-3-Clause); Byte Buddy's own NOTICE is appended to META-INF/NOTICE
                "META-INF/licenses/ASM");
            assertThat(files).as("nothing but classes outside META-INF")
                .allSatisfy(n -> assertThat(n.startsWith("META-INF/") || n.endsWith(".class")).as(n).isTrue());
        }
    }

    @Test
    void entryPointsLoadFromTheJarAlone() throws Exception {
        URL url = ChildJvm.agentJar().toUri().toURL();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {url}, ClassLoader.getPlatformClassLoader());
             JarFile jar = new JarFile(ChildJvm.agentJar().toFile())) {
            Class<?> agent = Class.forName(AGENT_CLASS, false, loader);
            assertThat(agent.getClassLoader()).isSameAs(loader);
            for (String name : List.of("premain", "agentmain")) {
                Method m = agent.getMethod(name, String.class, Instrumentation.class);
                assertThat(Modifier.isStatic(m.getModifiers())).as(name).isTrue();
                assertThat(m.getReturnType()).isEqualTo(void.class);
            }
            // every class resolves inside the jar: nothing refers outside it but to the JDK, and Byte Buddy's
            // classes to its optional JNA (used only where present). The servlet and Ratis advice are templates Byte
            // Buddy reads and inlines into the container's or Ratis' classes, never loaded themselves.
            List<String> unresolved = new ArrayList<>();
            for (JarEntry e : entries(jar)) {
                if (e.getName().endsWith(".class") && !e.getName().startsWith("io/bladegc/agent/servlet/")
                    && !e.getName().startsWith("io/bladegc/agent/ratis/")) {
                    String cn = e.getName().replace('/', '.').substring(0, e.getName().length() - 6);
                    try {
                        Class<?> c = Class.forName(cn, false, loader);
                        assertThat(c.getClassLoader()).as(cn).isSameAs(loader);
                        c.getDeclaredMethods(); // resolves the signatures' types
                        c.getDeclaredFields();
                    } catch (NoClassDefFoundError missing) {
                        if (!(cn.startsWith("io.bladegc.agent.internal.bytebuddy.")
                            && missing.getMessage().startsWith("com/sun/jna/"))) {
                            unresolved.add(cn + ": " + missing.getMessage());
                        }
                    }
                }
            }
            assertThat(unresolved).as("classes that refer outside the jar").isEmpty();
        }
    }
}
