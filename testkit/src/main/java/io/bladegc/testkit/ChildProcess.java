package io.bladegc.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child process this JVM started, with its stdout and stderr in files, stopped by its own pid only: SIGTERM
 * ({@link Process#destroy()}), up to 10 s to exit, then SIGKILL. Thread-safe ({@link #close()} may be called more
 * than once, from any thread).
 */
public final class ChildProcess implements AutoCloseable {
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    /** A readiness check; an exception counts as "not yet". */
    public interface Check {
        /** @return whether the child is ready */
        boolean ok() throws Exception;
    }

    private final String name;
    private final List<String> command;
    private final Process process;
    private final Path stderr;

    private ChildProcess(String name, List<String> command, Process process, Path stderr) {
        this.name = name;
        this.command = command;
        this.process = process;
        this.stderr = stderr;
    }

    /**
     * Starts {@code command}, its output going to {@code stdout} and {@code stderr} (replaced; may be the same file).
     *
     * @param name   what it is, for messages
     * @param command the program and its arguments
     * @param stdout where its standard output goes
     * @param stderr where its standard error goes
     * @return the started child
     */
    public static ChildProcess start(String name, List<String> command, Path stdout, Path stderr)
            throws IOException {
        return start(name, new ProcessBuilder(command), stdout, stderr);
    }

    /**
     * Starts what {@code builder} describes (its command, working directory, environment and standard input), its
     * output going to {@code stdout} and {@code stderr} (replaced; may be the same file): the builder's output
     * redirects are overwritten.
     *
     * @param name    what it is, for messages
     * @param builder the program, set up by the caller
     * @param stdout  where its standard output goes
     * @param stderr  where its standard error goes
     * @return the started child
     */
    public static ChildProcess start(String name, ProcessBuilder builder, Path stdout, Path stderr)
            throws IOException {
        for (Path p : List.of(stdout, stderr)) {
            if (p.toAbsolutePath().getParent() != null) {
                Files.createDirectories(p.toAbsolutePath().getParent());
            }
        }
        builder.redirectOutput(stdout.toFile());
        if (stderr.equals(stdout)) {
            builder.redirectErrorStream(true);
        } else {
            builder.redirectErrorStream(false).redirectError(stderr.toFile());
        }
        return new ChildProcess(name, List.copyOf(builder.command()), builder.start(), stderr);
    }

    /**
     * Polls {@code check} every 50 ms until it holds.
     *
     * @param what    what is awaited, for the message
     * @param timeout how long to wait at most
     * @throws IllegalStateException when the child exits first or the time runs out (naming the log)
     */
    public void awaitReady(Check check, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!holds(check)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited (status " + process.exitValue() + ") before "
                    + what + "; see " + stderr.toAbsolutePath() + ":\n" + tail(stderr));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what
                    + "; see " + stderr.toAbsolutePath());
            }
            Thread.sleep(50);
        }
    }

    private static boolean holds(Check check) {
        try {
            return check.ok();
        } catch (Exception e) {
            return false;
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(cannot read it: " + e + ")";
        }
    }

    /**
     * Waits for the child to exit by itself.
     *
     * @param timeout how long to wait at most
     * @return whether it exited within {@code timeout} (then {@link #exitStatus()} is its status)
     */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * @return the status it exited with
     * @throws IllegalStateException if it is still running
     */
    public int exitStatus() {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " (pid " + process.pid() + ") is still running");
        }
        return process.exitValue();
    }

    /** @return the program and its arguments */
    public List<String> command() {
        return command;
    }

    /** @return the child's pid */
    public long pid() {
        return process.pid();
    }

    /** @return whether it is still running */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** @return the file its standard error goes to */
    public Path stderr() {
        return stderr;
    }

    /** Kills the child by its pid at once (SIGKILL, a crash) and waits up to 10 s for it to be gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops the child by its pid: SIGTERM, then SIGKILL if it has not exited within 10 s. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
            System.err.println(name + " (pid " + process.pid() + ") ignored SIGTERM, killing it");
            process.destroyForcibly();
            process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
