package io.bladegc.testkit;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs a main class of the caller's classes in a child JVM, usually with Blade's agent ({@link #javaagent}), to its
 * exit: bounded by a timeout, stopped by its pid whatever happens (a {@link ChildProcess}). For the tests that need a
 * fresh JVM: the agent's start-up, its options, its coordination. Thread-safe (no shared state).
 */
public final class ChildJvm {
    /** How long a child JVM may run before it is stopped and the run fails: 60 s. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** The system property holding the path of the shaded agent jar (the agent module's failsafe sets it). */
    public static final String AGENT_JAR_PROPERTY = "bladegc.agent.jar";

    /** How every line Blade's agent prints itself starts (the agent's {@code BladeAgent.PREFIX}). */
    public static final String AGENT_PREFIX = "[blade] ";

    /** What a child JVM did. */
    public record Run(List<String> command, int exitCode, String stdout, String stderr) {
        /** @return its standard output, line by line */
        public List<String> stdoutLines() {
            return stdout.lines().toList();
        }

        /** @return its standard error, line by line */
        public List<String> stderrLines() {
            return stderr.lines().toList();
        }

        /** @return the stderr lines Blade's agent printed itself */
        public List<String> bladeLines() {
            return stderr.lines().filter(l -> l.startsWith(AGENT_PREFIX)).toList();
        }

        /**
         * @return the summary the running node reported through the MBean channel (the test application prints it
         *     as {@code blade node: <summary>}), or "(no blade node line)"
         */
        public String channelSummary() {
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

    /**
     * @return the agent jar the build produced, from the system property {@value #AGENT_JAR_PROPERTY}
     * @throws IllegalStateException when the property is not set or names no file
     */
    public static Path agentJar() {
        String jar = System.getProperty(AGENT_JAR_PROPERTY);
        if (jar == null || jar.isBlank()) {
            throw new IllegalStateException("system property " + AGENT_JAR_PROPERTY + " (set by failsafe) is not set");
        }
        Path p = Path.of(jar);
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException("the shaded agent jar " + p + " is not a file; build the agent first");
        }
        return p;
    }

    /** @return the java launcher of the JDK running this JVM */
    public static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** @return {@code -javaagent:<jar>} or {@code -javaagent:<jar>=<args>}, the jar being {@link #agentJar()} */
    public static String javaagent(String args) {
        return "-javaagent:" + agentJar() + (args == null ? "" : "=" + args);
    }

    /**
     * Runs {@code java -Xmx64m <jvmArgs> -cp <main's classes> <main>} in a fresh temporary directory (deleted
     * afterwards, so any crash file goes with it), standard input empty, with the inherited environment minus
     * anything that configures Blade or the JVM behind the test's back, plus {@code env}. Waits up to
     * {@link #TIMEOUT} for it to exit.
     *
     * @param java    the java launcher
     * @param env     variables to add to the environment
     * @param main    the main class; its class path entry (a directory or jar) is the child's class path
     * @param jvmArgs the JVM's options
     * @return what it did
     * @throws AssertionError when it did not exit in time (it is stopped; the message holds its output)
     */
    public static Run run(Path java, Map<String, String> env, Class<?> main, String... jvmArgs)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("blade-child-");
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.add("-Xmx64m");
        cmd.addAll(Arrays.asList(jvmArgs));
        cmd.add("-cp");
        cmd.add(classPathOf(main).toString());
        cmd.add(main.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()); // any crash file lands in dir
        pb.environment().keySet().removeIf(k -> k.startsWith("BLADE_") || k.equals("JAVA_TOOL_OPTIONS")
            || k.equals("JDK_JAVA_OPTIONS") || k.equals("_JAVA_OPTIONS"));
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(nullFile()));
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        ChildProcess child = ChildProcess.start(main.getSimpleName(), pb, out, err);
        try {
            if (!child.awaitExit(TIMEOUT)) {
                child.close();
                throw new AssertionError("child JVM did not exit within " + TIMEOUT.toSeconds() + " s: "
                    + new Run(cmd, -1, read(out), read(err)));
            }
            return new Run(cmd, child.exitStatus(), read(out), read(err));
        } finally {
            child.close();
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
    public static Optional<Path> newerJava() throws IOException, InterruptedException {
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
    public static int featureVersion(Path java) throws IOException, InterruptedException {
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

    private static Path classPathOf(Class<?> main) {
        try {
            return Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI());
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
