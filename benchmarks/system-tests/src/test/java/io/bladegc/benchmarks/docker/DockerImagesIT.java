package io.bladegc.benchmarks.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfiles copy what the Maven build really produced: every {@code COPY} source exists under the repository
 * root (the build context) after {@code package}, the jars carry the names the build gives them (the same files the
 * other integration tests run, from the system properties {@code bladegc.agent.jar}, {@code bladegc.coordinator.jar},
 * {@code bladegc.demo.jar} and {@code bladegc.loadgen.jar}), the backend's {@code lib/} holds every runtime dependency
 * of the demo ({@code benchmarks/demo/target/classpath.txt}), each Dockerfile's {@code .dockerignore} lets exactly
 * its sources through, and every {@code /opt/blade/...} path the image's command line uses is something it copied.
 */
class DockerImagesIT {
    private static final Pattern IMAGE_PATH = Pattern.compile("/opt/blade/[A-Za-z0-9._/*-]*");

    @Test
    void coordinatorImageCopiesTheBuiltCoordinatorJar() throws IOException {
        Dockerfile d = Dockerfile.read(DockerDir.file("coordinator/Dockerfile"));
        assertThat(sources(d)).containsExactly(relative(property("bladegc.coordinator.jar")));
        assertSourcesExist(d);
        assertCommandUsesCopiedFiles(d);
        assertThat(d.command()).contains("-jar");
        assertIgnoreFileLetsThroughExactly(d, DockerDir.file("coordinator/Dockerfile.dockerignore"));
    }

    @Test
    void backendImageCopiesTheBuiltAgentDemoAndLoadgenJarsAndEveryRuntimeDependency() throws IOException {
        Dockerfile d = Dockerfile.read(DockerDir.file("backend/Dockerfile"));
        assertThat(sources(d)).containsExactlyInAnyOrder(relative(property("bladegc.agent.jar")),
            relative(property("bladegc.demo.jar")), relative(property("bladegc.loadgen.jar")),
            "benchmarks/demo/target/lib/");
        assertSourcesExist(d);
        assertCommandUsesCopiedFiles(d);

        Path lib = DockerDir.root().resolve("benchmarks/demo/target/lib");
        List<String> expected = new ArrayList<>();
        for (String entry : Files.readString(DockerDir.root().resolve("benchmarks/demo/target/classpath.txt")).strip()
                .split(File.pathSeparator)) {
            expected.add(Path.of(entry).getFileName().toString());
        }
        try (Stream<Path> jars = Files.list(lib)) {
            assertThat(jars.map(p -> p.getFileName().toString()))
                .as("benchmarks/demo/target/lib against benchmarks/demo/target/classpath.txt")
                .containsExactlyInAnyOrderElementsOf(expected);
        }

        assertThat(d.env()).containsKey("JAVA_TOOL_OPTIONS");
        assertThat(d.env().get("JAVA_TOOL_OPTIONS")).contains("-javaagent:/opt/blade/blade-agent.jar",
            "-XX:ParallelGCThreads=1");
        assertThat(d.command()).contains("io.bladegc.benchmarks.demo.DemoServer");
        assertThat(d.cmd()).containsSubsequence("--blade", "on");
        assertIgnoreFileLetsThroughExactly(d, DockerDir.file("backend/Dockerfile.dockerignore"));
    }

    /** @return the paths of {@code d}'s COPY sources, as written */
    static List<String> sources(Dockerfile d) {
        List<String> out = new ArrayList<>();
        d.copies().forEach(c -> out.addAll(c.sources()));
        return out;
    }

    /** @return every {@code /opt/blade/...} path in {@code texts}, a trailing {@code *} cut off */
    static Set<String> imagePaths(List<String> texts) {
        Set<String> out = new LinkedHashSet<>();
        for (String text : texts) {
            Matcher m = IMAGE_PATH.matcher(text);
            while (m.find()) {
                out.add(m.group().replaceAll("\\*$", ""));
            }
        }
        return out;
    }

    private static void assertCommandUsesCopiedFiles(Dockerfile d) {
        List<String> texts = new ArrayList<>(d.command());
        texts.addAll(d.env().values());
        Set<String> used = imagePaths(texts);
        assertThat(used).as("image paths the command line uses").isNotEmpty();
        assertThat(used).as("image paths the command line uses, each copied into the image by %s", d.copies())
            .allMatch(d::provides);
    }

    private static void assertSourcesExist(Dockerfile d) {
        for (String source : sources(d)) {
            Path p = DockerDir.root().resolve(source);
            if (source.endsWith("/")) {
                assertThat(p).as("COPY source %s (run ./mvnw package first)", source).isDirectory();
            } else {
                assertThat(p).as("COPY source %s (run ./mvnw package first)", source).isRegularFile();
            }
        }
    }

    private static void assertIgnoreFileLetsThroughExactly(Dockerfile d, Path ignoreFile) throws IOException {
        List<String> lines = Files.readAllLines(ignoreFile).stream().map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        assertThat(lines).as("%s: exclude everything first", ignoreFile).first().isEqualTo("*");
        assertThat(lines.subList(1, lines.size())).as("%s: then let the COPY sources through", ignoreFile)
            .containsExactlyInAnyOrderElementsOf(sources(d).stream().map(s -> "!" + s).toList());
    }

    private static String relative(Path built) {
        assertThat(built).as("built by the reactor").isRegularFile();
        return DockerDir.root().relativize(built.toAbsolutePath().normalize()).toString().replace('\\', '/');
    }

    private static Path property(String name) {
        String value = System.getProperty(name);
        assertThat(value).as("system property %s (set by benchmarks/system-tests/pom.xml for failsafe)", name)
            .isNotBlank();
        return Path.of(value);
    }
}
