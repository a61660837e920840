package io.bladegc.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.testapp.TinyApp;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Starts {@link TinyApp} in a child JVM, bounded by a timeout, always destroyed. For the {@code *IT} tests. */
final class ChildJvm {
    static final long TIMEOUT_SECONDS = 60;

    /** What a child JVM did. */
    record Run(List<String> command, int exitCode, String stdout, String stderr) {
        List<String> stdoutLines() {
            return stdout.lines().toList();
        }

        List<String> stderrLines() {
            return stderr.lines().toList();
        }

        /** @return the stderr lines Blade's agent printed itself */
        List<String> bladeLines() {
            return stderr.lines().filter(l -> l.startsWith(BladeAgent.PREFIX)).toList();
        }

        /** @return the summary the running node reported through the MBean channel, or "none" */
        String channelSummary() {
            return stdout.lines().filter(l -> l.startsWith("blade node: ")).findFirst()
                .map(l -> l.substring("blade node: ".length())).orElse("(no blade node line)");
        }

        @Override
        public String toString() {
            return "command: " + String.join(" ", command) + "\nexit: " + exitCode + "\n--- stdout\n" + stdout
                + "--- stderr\n" + stderr;
        }
    }

    private ChildJvm() {
    }

    /** @return the agent jar the build produced (failsafe passes its path) */
    static Path agentJar() {
        String jar = System.getProperty("bladegc.agent.jar");
        assertThat(jar).as("system property bladegc.agent.jar (set by failsafe)").isNotBlank();
        Path p = Path.of(jar);
        assertThat(p).as("the shaded agent jar").isRegularFile();
        return p;
    }

    /** @return the java launcher of the JDK running this test */
    static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** @return {@code -javaagent:<jar>} or {@code -javaagent:<jar>=<args>} */
    static String javaagent(String args) {
        return "-javaagent:" + agentJar() + (args == null ? "" : "=" + args);
    }

    /**
     * Runs TinyApp: {@code java -Xmx64m <jvmArgs> -cp <test-classes> TinyApp} in a fresh temporary directory
     * (deleted afterwards), with the inherited environment minus
     * anything that configures Blade or the JVM behind the test's back, plus {@code env}.
     */
    static Run run(Path java, Map<String, String> env, String... jvmArgs) throws IOException, InterruptedException {
        return run(java, env, TinyApp.class, jvmArgs);
    }

    /** Runs {@code main} (a class of the test classes) as {@link #run(Path, Map, String...)} runs TinyApp. */
    static Run run(Path java, Map<String, String> env, Class<?> main, String... jvmArgs)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("blade-child-");
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.add("-Xmx64m");
        cmd.addAll(Arrays.asList(jvmArgs));
        cmd.add("-cp");
        cmd.add(testClasses().toString());
        cmd.add(main.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()); // any crash file lands in dir
        pb.environment().keySet().removeIf(k -> k.startsWith("BLADE_") || k.equals("JAVA_TOOL_OPTIONS")
            || k.equals("JDK_JAVA_OPTIONS") || k.equals("_JAVA_OPTIONS"));
        pb.environment().putAll(env);
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        pb.redirectOutput(out.toFile());
        pb.redirectError(err.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(nullFile()));
        Process p = pb.start();
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("child JVM did not exit within " + TIMEOUT_SECONDS + " s: "
                    + new Run(cmd, -1, read(out), read(err)));
            }
            return new Run(cmd, p.exitValue(), read(out), read(err));
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /**
     * @return the newest JDK (feature version 21 or later) found under /usr/lib/jvm, other than the one running
     *     the test, if any
     */
    static Optional<Path> newerJava() throws IOException, InterruptedException {
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        Path best = null;
        int bestVersion = 20;
        try (Stream<Path> dirs = Files.list(jvms)) {
            for (Path d : dirs.sorted().toList()) {
                Path java = d.resolve("bin").resolve("java");
                if (!Files.isExecutable(java)) {
                    continue;
                }
                int v = featureVersion(java);
                if (v > bestVersion) {
                    bestVersion = v;
                    best = java;
                }
            }
        }
        return Optional.ofNullable(best);
    }

    /** @return the feature version {@code java -version} reports, or -1 */
    static int featureVersion(Path java) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(java.toString(), "-version").redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                return -1;
            }
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            Matcher m = Pattern.compile("version \"(1\\.)?(\\d+)").matcher(text);
            return m.find() ? Integer.parseInt(m.group(2)) : -1;
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    private static Path testClasses() {
        try {
            return Path.of(TinyApp.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static File nullFile() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private static String read(Path f) throws IOException {
        return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
    }
}
